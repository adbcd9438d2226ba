import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs a command under a seccomp filter that decides io_uring's three system calls as a Docker seccomp profile
 * decides them, as Docker applies its profile: before the command's first instruction. A single-file program (no
 * dependency, no native compiler; run by {@code java --enable-native-access=ALL-UNNAMED SeccompLauncher.java}), so
 * that every module's tests can run it:
 *
 * <pre>
 * java SeccompLauncher.java --profile seccomp/testing/moby-default.json -- /path/to/java -cp ... Main
 * </pre>
 *
 * It reads the profile (JSON, Docker's format), finds what it does with {@code io_uring_setup}, {@code io_uring_enter}
 * and {@code io_uring_register} for a container with Docker's default capabilities on this architecture (the first
 * unconditional rule that names the call, else the profile's {@code defaultAction}), installs a BPF filter that
 * returns that errno for each refused call and allows everything else, sets no_new_privs (which an unprivileged
 * process needs to install a filter) and execs the command, which inherits the filter. It prints the decision on
 * stderr ({@code seccomp: io_uring_setup=EPERM ...}). Only those three calls are filtered: the rest of the profile
 * (which a JVM outside a container may need more of) is not applied.
 */
public final class SeccompLauncher {
    private static final String[] IO_URING = {"io_uring_setup", "io_uring_enter", "io_uring_register"};
    /** The calls' numbers: the same on x86_64 and aarch64 (the generic table's numbers for calls added since 5.1). */
    private static final int[] IO_URING_NR = {425, 426, 427};

    private static final int PR_SET_NO_NEW_PRIVS = 38;
    private static final int PR_SET_SECCOMP = 22;
    private static final int SECCOMP_MODE_FILTER = 2;
    private static final int SECCOMP_RET_ALLOW = 0x7fff0000;
    private static final int SECCOMP_RET_ERRNO = 0x00050000;
    private static final int BPF_LD_W_ABS = 0x20;
    private static final int BPF_JEQ_K = 0x15;
    private static final int BPF_RET_K = 0x06;

    private SeccompLauncher() { }

    public static void main(String[] args) throws Throwable {
        int dash = List.of(args).indexOf("--");
        if (args.length < 4 || !args[0].equals("--profile") || dash != 2 || dash == args.length - 1) {
            System.err.println("usage: SeccompLauncher --profile <docker-seccomp.json> -- <command> [args...]");
            System.exit(2);
        }
        Map<String, Integer> errnos = decide(Path.of(args[1]), scmpArch());
        StringBuilder said = new StringBuilder("seccomp:");
        errnos.forEach((name, errno) -> said.append(' ').append(name).append('=')
            .append(errno == 0 ? "allowed" : errno == 1 ? "EPERM" : "errno " + errno));
        System.err.println(said);
        String[] command = java.util.Arrays.copyOfRange(args, dash + 1, args.length);
        installAndExec(errnos, command);
    }

    /** @return for each io_uring call, 0 if the profile allows it, else the errno it returns */
    static Map<String, Integer> decide(Path profile, String arch) throws Exception {
        @SuppressWarnings("unchecked")
        Map<String, Object> p = (Map<String, Object>) new Json(Files.readString(profile)).value();
        int defaultErrno = p.containsKey("defaultErrnoRet") ? ((Number) p.get("defaultErrnoRet")).intValue() : 1;
        Map<String, Integer> out = new LinkedHashMap<>();
        for (String call : IO_URING) {
            String action = (String) p.get("defaultAction");
            Object errnoRet = null;
            for (Object o : (List<?>) p.get("syscalls")) {
                Map<?, ?> rule = (Map<?, ?>) o;
                if (!((List<?>) rule.get("names")).contains(call) || !applies(rule, arch)) {
                    continue;
                }
                action = (String) rule.get("action");
                errnoRet = rule.get("errnoRet");
                break;
            }
            out.put(call, switch (action) {
                case "SCMP_ACT_ALLOW" -> 0;
                case "SCMP_ACT_ERRNO" -> errnoRet != null ? ((Number) errnoRet).intValue() : defaultErrno;
                default -> throw new IllegalArgumentException(call + ": action " + action + " is not supported here");
            });
        }
        return out;
    }

    /** Whether a rule applies unconditionally to a container with Docker's default capabilities on {@code arch}. */
    private static boolean applies(Map<?, ?> rule, String arch) {
        if (rule.get("args") instanceof List<?> a && !a.isEmpty()) {
            return false;
        }
        if (rule.get("includes") instanceof Map<?, ?> inc) {
            if (inc.get("caps") instanceof List<?> caps && !caps.isEmpty()) {
                return false; // granted with a capability Docker's default set lacks (CAP_SYS_ADMIN, ...)
            }
            if (inc.get("arches") instanceof List<?> arches && !arches.isEmpty() && !arches.contains(arch)) {
                return false;
            }
            if (inc.get("minKernel") != null) {
                return false;
            }
        }
        if (rule.get("excludes") instanceof Map<?, ?> exc) {
            return !(exc.get("arches") instanceof List<?> arches && arches.contains(arch));
        }
        return true;
    }

    private static String scmpArch() {
        return switch (System.getProperty("os.arch")) {
            case "amd64", "x86_64" -> "amd64";
            case "aarch64", "arm64" -> "arm64";
            default -> throw new IllegalStateException("unsupported architecture " + System.getProperty("os.arch"));
        };
    }

    private static int auditArch() {
        return scmpArch().equals("amd64") ? 0xC000003E : 0xC00000B7;
    }

    private static void installAndExec(Map<String, Integer> errnos, String[] command) throws Throwable {
        Linker linker = Linker.nativeLinker();
        StructLayout ccs = Linker.Option.captureStateLayout();
        VarHandle errnoHandle = ccs.varHandle(java.lang.foreign.MemoryLayout.PathElement.groupElement("errno"));
        Linker.Option capture = Linker.Option.captureCallState("errno");
        MethodHandle prctl = linker.downcallHandle(linker.defaultLookup().find("prctl").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG),
            Linker.Option.firstVariadicArg(1), capture);
        MethodHandle execve = linker.downcallHandle(linker.defaultLookup().find("execve").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS,
                ValueLayout.ADDRESS), capture);
        Arena arena = Arena.global();
        MemorySegment state = arena.allocate(ccs);

        List<int[]> insns = new ArrayList<>(); // {code, jt, jf, k}
        List<Integer> denied = new ArrayList<>();
        for (int i = 0; i < IO_URING.length; i++) {
            int errno = errnos.get(IO_URING[i]);
            if (errno != 0) {
                denied.add(IO_URING_NR[i]);
                denied.add(errno);
            }
        }
        int n = denied.size() / 2;
        insns.add(new int[] {BPF_LD_W_ABS, 0, 0, 4});                    // seccomp_data.arch
        insns.add(new int[] {BPF_JEQ_K, 0, 1 + 2 * n, auditArch()});      // another ABI: allow
        insns.add(new int[] {BPF_LD_W_ABS, 0, 0, 0});                    // seccomp_data.nr
        for (int i = 0; i < n; i++) {
            insns.add(new int[] {BPF_JEQ_K, 0, 1, denied.get(2 * i)});
            insns.add(new int[] {BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | (denied.get(2 * i + 1) & 0xffff)});
        }
        insns.add(new int[] {BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW});
        MemorySegment filter = arena.allocate(8L * insns.size(), 8);
        for (int i = 0; i < insns.size(); i++) {
            int[] f = insns.get(i);
            filter.set(ValueLayout.JAVA_SHORT, 8L * i, (short) f[0]);
            filter.set(ValueLayout.JAVA_BYTE, 8L * i + 2, (byte) f[1]);
            filter.set(ValueLayout.JAVA_BYTE, 8L * i + 3, (byte) f[2]);
            filter.set(ValueLayout.JAVA_INT, 8L * i + 4, f[3]);
        }
        MemorySegment prog = arena.allocate(16, 8); // struct sock_fprog { unsigned short len; sock_filter *filter; }
        prog.set(ValueLayout.JAVA_SHORT, 0, (short) insns.size());
        prog.set(ValueLayout.ADDRESS, 8, filter);

        if ((int) prctl.invokeExact(state, PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L) != 0) {
            fail("prctl(PR_SET_NO_NEW_PRIVS)", (int) errnoHandle.get(state, 0L));
        }
        // this thread only: the exec below ends the JVM's other threads, and the new program inherits the filter
        if ((int) prctl.invokeExact(state, PR_SET_SECCOMP, (long) SECCOMP_MODE_FILTER, prog.address(), 0L, 0L) != 0) {
            fail("prctl(PR_SET_SECCOMP)", (int) errnoHandle.get(state, 0L));
        }
        MemorySegment argv = arena.allocate(ValueLayout.ADDRESS, command.length + 1L);
        for (int i = 0; i < command.length; i++) {
            argv.setAtIndex(ValueLayout.ADDRESS, i, arena.allocateFrom(command[i]));
        }
        argv.setAtIndex(ValueLayout.ADDRESS, command.length, MemorySegment.NULL);
        List<String> env = new ArrayList<>();
        System.getenv().forEach((k, v) -> env.add(k + "=" + v));
        MemorySegment envp = arena.allocate(ValueLayout.ADDRESS, env.size() + 1L);
        for (int i = 0; i < env.size(); i++) {
            envp.setAtIndex(ValueLayout.ADDRESS, i, arena.allocateFrom(env.get(i)));
        }
        envp.setAtIndex(ValueLayout.ADDRESS, env.size(), MemorySegment.NULL);
        System.err.flush();
        System.out.flush();
        int r = (int) execve.invokeExact(state, arena.allocateFrom(command[0]), argv, envp);
        fail("execve(" + command[0] + ") returned " + r, (int) errnoHandle.get(state, 0L));
    }

    private static void fail(String what, int errno) {
        System.err.println("seccomp launcher: " + what + " failed, errno " + errno);
        System.exit(3);
    }

    /** Just enough JSON for a seccomp profile: objects, arrays, strings, numbers, true, false, null. */
    private static final class Json {
        private final String s;
        private int i;

        Json(String s) {
            this.s = s;
        }

        Object value() {
            skip();
            char c = s.charAt(i);
            if (c == '{') {
                Map<String, Object> m = new LinkedHashMap<>();
                i++;
                skip();
                if (s.charAt(i) == '}') {
                    i++;
                    return m;
                }
                while (true) {
                    skip();
                    String k = string();
                    skip();
                    expect(':');
                    m.put(k, value());
                    skip();
                    if (s.charAt(i++) == '}') {
                        return m;
                    }
                }
            }
            if (c == '[') {
                List<Object> l = new ArrayList<>();
                i++;
                skip();
                if (s.charAt(i) == ']') {
                    i++;
                    return l;
                }
                while (true) {
                    l.add(value());
                    skip();
                    if (s.charAt(i++) == ']') {
                        return l;
                    }
                }
            }
            if (c == '"') {
                return string();
            }
            for (String word : new String[] {"true", "false", "null"}) {
                if (s.startsWith(word, i)) {
                    i += word.length();
                    return word.equals("null") ? null : Boolean.valueOf(word);
                }
            }
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
            return Double.valueOf(s.substring(start, i));
        }

        private String string() {
            expect('"');
            StringBuilder b = new StringBuilder();
            for (char c; (c = s.charAt(i++)) != '"'; ) {
                if (c == '\\') {
                    char e = s.charAt(i++);
                    switch (e) {
                        case 'n' -> b.append('\n');
                        case 't' -> b.append('\t');
                        case 'u' -> {
                            b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                            i += 4;
                        }
                        default -> b.append(e);
                    }
                } else {
                    b.append(c);
                }
            }
            return b.toString();
        }

        private void expect(char c) {
            if (s.charAt(i++) != c) {
                throw new IllegalArgumentException("JSON: expected " + c + " at " + (i - 1));
            }
        }

        private void skip() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
        }
    }
}
