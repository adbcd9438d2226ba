package io.ringwire.uring;

/**
 * Linux errno numbers (x86_64, {@code include/uapi/asm-generic/errno-base.h} and {@code errno.h}) and their names.
 *
 * <p>The binding passes errors around as the kernel does, as negative ints ({@code -ECONNRESET}); only the edge turns
 * them into a {@link NativeIoException} whose message names the errno, so the hot path allocates nothing.
 */
public final class Errno {
    private Errno() { }

    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EINTR = 4;
    public static final int EIO = 5;
    public static final int EBADF = 9;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EACCES = 13;
    public static final int EFAULT = 14;
    public static final int EBUSY = 16;
    public static final int EEXIST = 17;
    public static final int EINVAL = 22;
    public static final int ENFILE = 23;
    public static final int EMFILE = 24;
    public static final int ENOSPC = 28;
    public static final int EPIPE = 32;
    public static final int ENOSYS = 38;
    public static final int ETIME = 62;
    public static final int EOVERFLOW = 75;
    public static final int EBADFD = 77;
    public static final int ENOTSOCK = 88;
    public static final int EMSGSIZE = 90;
    public static final int ENOPROTOOPT = 92;
    public static final int EOPNOTSUPP = 95;
    public static final int EAFNOSUPPORT = 97;
    public static final int EADDRINUSE = 98;
    public static final int EADDRNOTAVAIL = 99;
    public static final int ENETUNREACH = 101;
    public static final int ECONNABORTED = 103;
    public static final int ECONNRESET = 104;
    public static final int ENOBUFS = 105;
    public static final int EISCONN = 106;
    public static final int ENOTCONN = 107;
    public static final int ESHUTDOWN = 108;
    public static final int ETIMEDOUT = 110;
    public static final int ECONNREFUSED = 111;
    public static final int EHOSTUNREACH = 113;
    public static final int EALREADY = 114;
    public static final int EINPROGRESS = 115;
    public static final int ECANCELED = 125;

    private static final String[] NAMES = new String[134];

    static {
        String table = """
            1 EPERM 2 ENOENT 3 ESRCH 4 EINTR 5 EIO 6 ENXIO 7 E2BIG 8 ENOEXEC 9 EBADF 10 ECHILD 11 EAGAIN 12 ENOMEM
            13 EACCES 14 EFAULT 15 ENOTBLK 16 EBUSY 17 EEXIST 18 EXDEV 19 ENODEV 20 ENOTDIR 21 EISDIR 22 EINVAL
            23 ENFILE 24 EMFILE 25 ENOTTY 26 ETXTBSY 27 EFBIG 28 ENOSPC 29 ESPIPE 30 EROFS 31 EMLINK 32 EPIPE 33 EDOM
            34 ERANGE 35 EDEADLK 36 ENAMETOOLONG 37 ENOLCK 38 ENOSYS 39 ENOTEMPTY 40 ELOOP 42 ENOMSG 43 EIDRM
            60 ENOSTR 61 ENODATA 62 ETIME 63 ENOSR 67 ENOLINK 71 EPROTO 74 EBADMSG 75 EOVERFLOW 77 EBADFD 84 EILSEQ
            87 EUSERS 88 ENOTSOCK 89 EDESTADDRREQ 90 EMSGSIZE 91 EPROTOTYPE 92 ENOPROTOOPT 93 EPROTONOSUPPORT
            94 ESOCKTNOSUPPORT 95 EOPNOTSUPP 96 EPFNOSUPPORT 97 EAFNOSUPPORT 98 EADDRINUSE 99 EADDRNOTAVAIL
            100 ENETDOWN 101 ENETUNREACH 102 ENETRESET 103 ECONNABORTED 104 ECONNRESET 105 ENOBUFS 106 EISCONN
            107 ENOTCONN 108 ESHUTDOWN 109 ETOOMANYREFS 110 ETIMEDOUT 111 ECONNREFUSED 112 EHOSTDOWN
            113 EHOSTUNREACH 114 EALREADY 115 EINPROGRESS 116 ESTALE 122 EDQUOT 125 ECANCELED 126 ENOKEY
            127 EKEYEXPIRED 128 EKEYREVOKED 129 EKEYREJECTED 130 EOWNERDEAD 131 ENOTRECOVERABLE 132 ERFKILL
            133 EHWPOISON""";
        String[] words = table.trim().split("\\s+");
        for (int i = 0; i < words.length; i += 2) {
            NAMES[Integer.parseInt(words[i])] = words[i + 1];
        }
    }

    /**
     * The symbolic name of an errno.
     *
     * @param errno positive ({@code ECONNRESET}) or negative ({@code -ECONNRESET}, as a CQE's res carries it)
     * @return e.g. {@code "ECONNRESET"}, or {@code "errno 999"} for a number this table does not know
     */
    public static String name(int errno) {
        int e = Math.abs(errno);
        String n = e < NAMES.length ? NAMES[e] : null;
        return n != null ? n : "errno " + e;
    }

    /**
     * The C library's description of an errno ({@code strerror}).
     *
     * @param errno positive or negative errno
     * @return e.g. {@code "Connection reset by peer"}
     */
    public static String description(int errno) {
        return Libc.strerror(Math.abs(errno));
    }
}
