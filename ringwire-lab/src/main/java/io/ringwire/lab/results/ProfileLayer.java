package io.ringwire.lab.results;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Where one sample of a server's (or the redis-client workload's client's) profile spent its CPU: the layer of its
 * stack (async-profiler's collapsed format, root first, frames separated by {@code ;}; kernel frames end in
 * {@code _[k]}, Java frames are {@code a/b/C.m}).
 *
 * <p>The rules, in order:
 * <ol>
 *   <li>A stack of a JIT compiler thread ({@code CompileBroker::compiler_thread_loop}) or of a GC or VM thread
 *       ({@code WorkerThread::run}, {@code ConcurrentGCThread::run}, the G1 service and refinement threads,
 *       {@code VMThread::}) is {@link #GC_JIT}, whatever its leaf: the thread's whole cost is the JVM's.</li>
 *   <li>Otherwise the leaf frame (self time) decides, or when it names no layer (a helper such as {@code memcpy},
 *       {@code copy_user_generic}, a JDK method, a JVM stub), the nearest caller that does:
 *     <ul>
 *       <li>kernel frames: io_uring ({@code io_*}, {@code *io_uring*}) and epoll ({@code ep_*}, {@code *epoll*}) code,
 *           and a socket's readiness check ({@code tcp_poll}, {@code sock_poll}) are {@link #KERNEL_POLL}; the entry
 *           and exit of a system call and its descriptor look-up ({@code entry_SYSCALL_64*}, {@code do_syscall_64},
 *           {@code syscall_exit*}, {@code __x64_sys_*}, {@code __sys_*}, {@code fdget}) {@link #SYSCALL}; the socket
 *           layer, TCP, IP, the loopback device and the network softirq {@link #KERNEL_TCP_IP}; the scheduler, page
 *           faults and interrupts {@link #OTHER}. A kernel stack none of whose frames names a layer is
 *           {@link #OTHER}: the Java caller of a kernel sample never takes it.</li>
 *       <li>Java frames: the lab's own instrumentation in the server ({@code ServerStats}, {@code MemorySnapshot})
 *           {@link #OTHER}; the workload's code ({@code io.ringwire.lab}, {@code io.ringwire.examples}), and in the
 *           redis-client workload's client Lettuce ({@code io.lettuce}), whose commands are its work,
 *           {@link #HANDLER}; the rest of {@code io.ringwire}, Netty's native and NIO channels
 *           ({@code io.netty.channel.epoll}, {@code .uring}, {@code .unix}, {@code .nio}, {@code .socket.nio}) and
 *           the JDK's {@code sun.nio.ch} {@link #TRANSPORT}; the rest of {@code io.netty} (pipeline, buffers,
 *           codecs, executors) {@link #NETTY}; the rest of the JDK names no layer.</li>
 *       <li>native frames of the JVM: the collector's ({@code G1*}, {@code CollectedHeap}, {@code MemAllocator}, TLAB
 *           refills) and the compiler's ({@code CompileBroker}, {@code Compile::}, {@code Deoptimization::}, ...)
 *           {@link #GC_JIT}; libc and the JVM's other code name no layer.</li>
 *     </ul></li>
 *   <li>A stack no frame of which names a layer is {@link #OTHER}.</li>
 * </ol>
 */
public enum ProfileLayer {
    /** The kernel's socket layer, TCP, IP, loopback and the network softirq. */
    KERNEL_TCP_IP("kernel TCP/IP"),
    /** The kernel's io_uring or epoll code, readiness checks included. */
    KERNEL_POLL("io_uring or epoll kernel"),
    /** Entering and leaving the kernel for a system call. */
    SYSCALL("system-call entry"),
    /** The transport's Java: io.ringwire, Netty's epoll, io_uring and NIO channels, the JDK's NIO. */
    TRANSPORT("transport's Java"),
    /** The rest of Netty: the pipeline, buffers, codecs, executors. */
    NETTY("Netty pipeline and buffers"),
    /** The workload's own handler (io.ringwire.lab, io.ringwire.examples); in a Lettuce client, Lettuce too. */
    HANDLER("workload handler"),
    /** The collector and the JIT compiler, and the VM thread. */
    GC_JIT("GC and JIT"),
    /** Everything else: the scheduler, page faults, interrupts, the lab's sampler, unknown frames. */
    OTHER("other");

    private final String label;

    ProfileLayer(String label) {
        this.label = label;
    }

    /** @return the layer's name in tables */
    public String label() {
        return label;
    }

    /** The suffix async-profiler gives a kernel frame in collapsed stacks. */
    public static final String KERNEL = "_[k]";

    private static final Pattern JVM_THREAD = Pattern.compile("^(CompileBroker::compiler_thread_loop|WorkerThread::run"
        + "|ConcurrentGCThread::run|G1ServiceThread::|G1ConcurrentRefineThread::|G1PrimaryConcurrentRefineThread::"
        + "|VMThread::)");
    private static final Pattern KERNEL_POLL_FRAME = Pattern.compile("^(__)?io_|io_uring|^(__)?ep_|epoll"
        + "|^tcp_poll$|^sock_poll$");
    private static final Pattern SYSCALL_FRAME = Pattern.compile("^(entry_SYSCALL|do_syscall_64|syscall_exit"
        + "|syscall_return|exit_to_user_mode|__x64_sys_|__arm64_sys_|__sys_|ksys_|el0_svc|invoke_syscall"
        + "|__(f|fd)get|fdget|fput$|sockfd_lookup)");
    private static final Pattern TCP_IP_FRAME = Pattern.compile("^(__)?((tcp[46v]*|inet6?|ipv?6?|sock|sk|skb"
        + "|udp[46v]*|unix|net|netif|netdev|napi|dev|neigh|dst|nf|icmp|raw|csum)_|lock_sock|release_sock|loopback"
        + "|process_backlog|validate_xmit|kfree_skb|consume_skb|alloc_skb|security_socket|selinux_socket"
        + "|apparmor_socket|do_softirq|handle_softirqs|local_bh_enable)");
    private static final Pattern KERNEL_OTHER_FRAME = Pattern.compile("^(__)?(schedule|asm_exc_page_fault"
        + "|exc_page_fault|handle_mm_fault|do_user_addr_fault|asm_sysvec_|sysvec_|asm_common_interrupt|futex"
        + "|do_futex|hrtimer_interrupt)");
    private static final Pattern GC_JIT_FRAME = Pattern.compile("^(G1|CollectedHeap::|MemAllocator|"
        + "ThreadLocalAllocBuffer::|CompileBroker::|C2Compiler::|Compile::|Compilation::|Compiler::|CompilationPolicy::"
        + "|Deoptimization::|SafepointSynchronize::|SafepointMechanism::)");

    /**
     * @param stack a collapsed stack without its count: frames root first, separated by {@code ;}
     * @return its layer
     */
    static ProfileLayer of(String stack) {
        return of(List.of(stack.split(";")));
    }

    /**
     * @param frames a stack's frames, root first
     * @return its layer
     */
    static ProfileLayer of(List<String> frames) {
        for (String f : frames) {
            if (JVM_THREAD.matcher(f).find()) {
                return GC_JIT;
            }
        }
        boolean kernelLeaf = !frames.isEmpty() && frames.get(frames.size() - 1).endsWith(KERNEL);
        for (int i = frames.size() - 1; i >= 0; i--) {
            String f = frames.get(i);
            boolean kernel = f.endsWith(KERNEL);
            if (kernelLeaf && !kernel) {
                return OTHER; // a kernel sample whose kernel frames named no layer: not its Java caller's
            }
            ProfileLayer layer = kernel ? kernelFrame(f.substring(0, f.length() - KERNEL.length())) : userFrame(f);
            if (layer != null) {
                return layer;
            }
        }
        return OTHER;
    }

    /** @return the layer a kernel function names, or null for a helper (a copy, a lock, an allocation) */
    private static ProfileLayer kernelFrame(String f) {
        if (KERNEL_POLL_FRAME.matcher(f).find()) {
            return KERNEL_POLL;
        }
        if (SYSCALL_FRAME.matcher(f).find()) {
            return SYSCALL;
        }
        if (TCP_IP_FRAME.matcher(f).find()) {
            return KERNEL_TCP_IP;
        }
        if (KERNEL_OTHER_FRAME.matcher(f).find()) {
            return OTHER;
        }
        return null;
    }

    /** @return the layer a Java or native frame names, or null (the JDK, libc, the JVM's runtime and stubs) */
    private static ProfileLayer userFrame(String f) {
        if (GC_JIT_FRAME.matcher(f).find()) {
            return GC_JIT;
        }
        if (f.contains("::") || f.startsWith("[")) {
            return null; // the JVM's other C++ code, [unknown], [not_walkable_Java]
        }
        String java = f.replace('/', '.');
        if (java.startsWith("io.ringwire.lab.server.ServerStats")
            || java.startsWith("io.ringwire.lab.server.MemorySnapshot")) {
            return OTHER; // the lab's sampler and its answers, not the workload
        }
        if (java.startsWith("io.ringwire.lab.") || java.startsWith("io.ringwire.examples.")
            || java.startsWith("io.lettuce.")) {
            return HANDLER;
        }
        if (java.startsWith("io.ringwire.") || java.startsWith("io.netty.channel.epoll.")
            || java.startsWith("io.netty.channel.uring.") || java.startsWith("io.netty.channel.unix.")
            || java.startsWith("io.netty.channel.nio.") || java.startsWith("io.netty.channel.socket.nio.")
            || java.startsWith("sun.nio.ch.")) {
            return TRANSPORT;
        }
        if (java.startsWith("io.netty.")) {
            return NETTY;
        }
        return null;
    }
}
