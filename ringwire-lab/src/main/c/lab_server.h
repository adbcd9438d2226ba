/*
 * What the lab's two C reference servers (uring_server.c, epoll_server.c) share: the command line, the listener, the
 * byte buffers, the framing of the rpc-backend shape, and the lab's control lines on stdin.
 *
 * Command line: <server> <port> <echo|frames>. The server binds 127.0.0.1:<port> only, prints "READY <port>" on
 * stdout, and answers the lab's lines on stdin as the Java servers do (io.ringwire.lab.server.ServerStats): RESET
 * -> "OK", STATS -> "STATS key=value ..." (its own counters since RESET), LIVE -> "LIVE", CONNS -> "CONNS
 * directDescriptors=0"; anything else -> "ERROR unknown command '...'". At the end of stdin it exits, so that a server
 * the lab no longer speaks to does not go on holding its core and its port.
 *
 * echo: every byte back as it comes. frames: the rpc-backend shape, as the Java servers serve it with Netty's
 * LengthFieldBasedFrameDecoder(1 MiB, 0, 4) and an echo handler: a frame is a 4-byte big-endian length of what
 * follows and those bytes; each whole frame goes back unchanged (header included) once it is complete, a frame's
 * start is held until its end arrives, and a frame longer than 1 MiB in all closes the connection (Netty's
 * TooLongFrameException: the frames decoded before it in the same read are not sent either).
 */
#ifndef RINGWIRE_LAB_SERVER_H
#define RINGWIRE_LAB_SERVER_H

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/**
 * Frames longer than this in all (header included) close the connection: io.ringwire.lab.server.LabServer.MAX_FRAME.
 */
#define MAX_FRAME (1u << 20)

enum mode { MODE_ECHO, MODE_FRAMES };

/* ------------------------------------------------------------------------------------------------ counters */

/**
 * What the loop counted (syscalls: every system call it made), read by the control thread: the loop alone writes them (a relaxed load and store, a plain
 * move on x86, no locked instruction per count), the control thread reads them relaxed.
 */
enum counter { C_ENTERS, C_SQES, C_CQES, C_WRITES, C_WRITE_IOVECS, C_RECVS, C_RECV_BYTES, C_EXHAUSTED, C_ITERATIONS,
    C_ACCEPTED, C_SYSCALLS, C_COUNT };

static const char *const COUNTER_NAMES[C_COUNT] = {"enters", "sqes", "cqes", "writes", "writeIovecs", "recvs",
    "recvBytes", "bufferRingExhausted", "iterations", "accepted", "syscalls"};

static uint64_t counters[C_COUNT];
/** Which counters this server keeps (the epoll one has no SQEs, CQEs or buffer ring). */
static int counted[C_COUNT];

static inline void count(enum counter c, uint64_t n)
{
    __atomic_store_n(&counters[c], __atomic_load_n(&counters[c], __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------------------------------------------ buffers */

/** A growable byte buffer. */
struct bytes {
    uint8_t *p;
    size_t len;
    size_t cap;
};

static void die(const char *what)
{
    fprintf(stdout, "ERROR %s: %s\n", what, strerror(errno));
    fflush(stdout);
    exit(1);
}

static void bytes_reserve(struct bytes *b, size_t more)
{
    if (b->len + more <= b->cap) {
        return;
    }
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + more) {
        cap *= 2;
    }
    uint8_t *p = realloc(b->p, cap);
    if (p == NULL) {
        die("realloc");
    }
    b->p = p;
    b->cap = cap;
}

static inline void bytes_append(struct bytes *b, const uint8_t *data, size_t n)
{
    bytes_reserve(b, n);
    memcpy(b->p + b->len, data, n);
    b->len += n;
}

/** Drops the first n bytes. */
static inline void bytes_consume(struct bytes *b, size_t n)
{
    if (n >= b->len) {
        b->len = 0;
        return;
    }
    memmove(b->p, b->p + n, b->len - n);
    b->len -= n;
}

static void bytes_free(struct bytes *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

/* ------------------------------------------------------------------------------------------------ framing */

/**
 * @return how many leading bytes of data[0..n) are whole frames (each one's header and body), or -1 if a frame's
 *         header announces more than MAX_FRAME in all
 */
static inline long whole_frames(const uint8_t *data, size_t n)
{
    size_t at = 0;
    while (n - at >= 4) {
        uint32_t length = (uint32_t) data[at] << 24 | (uint32_t) data[at + 1] << 16 | (uint32_t) data[at + 2] << 8
            | data[at + 3];
        if ((uint64_t) length + 4 > MAX_FRAME) {
            return -1;
        }
        if (n - at < 4 + (size_t) length) {
            break;
        }
        at += 4 + length;
    }
    return (long) at;
}

/**
 * Takes data[0..n), just received on a connection whose unfinished frame so far is in *in, and appends what goes back
 * to *out: in echo mode all of it; in frames mode every frame now whole, in order, the rest kept in *in.
 *
 * @return 0, or -1 on a frame too long (the connection is to be closed, *out as it was)
 */
static int take(enum mode mode, struct bytes *in, struct bytes *out, const uint8_t *data, size_t n)
{
    if (mode == MODE_ECHO) {
        bytes_append(out, data, n);
        return 0;
    }
    if (in->len == 0) { /* the common case: no frame started before; whole frames straight from the receive */
        long whole = whole_frames(data, n);
        if (whole < 0) {
            return -1;
        }
        bytes_append(out, data, (size_t) whole);
        if ((size_t) whole < n) {
            bytes_append(in, data + whole, n - (size_t) whole);
        }
        return 0;
    }
    bytes_append(in, data, n);
    long whole = whole_frames(in->p, in->len);
    if (whole < 0) {
        return -1;
    }
    bytes_append(out, in->p, (size_t) whole);
    bytes_consume(in, (size_t) whole);
    return 0;
}

/* ------------------------------------------------------------------------------------------------ set-up */

static enum mode parse_args(int argc, char **argv, int *port)
{
    if (argc != 3 || (strcmp(argv[2], "echo") != 0 && strcmp(argv[2], "frames") != 0)) {
        fprintf(stderr, "usage: %s <port> <echo|frames>\n", argv[0]);
        exit(2);
    }
    *port = atoi(argv[1]);
    return strcmp(argv[2], "echo") == 0 ? MODE_ECHO : MODE_FRAMES;
}

/** @return a listening TCP socket on 127.0.0.1:port (loopback only), backlog 4096, SO_REUSEADDR as Netty's */
static int listen_loopback(int port, int flags)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | flags, 0);
    if (fd < 0) {
        die("socket");
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t) port),
        .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (bind(fd, (struct sockaddr *) &a, sizeof a) < 0) {
        die("bind");
    }
    if (listen(fd, 4096) < 0) {
        die("listen");
    }
    return fd;
}

/** TCP_NODELAY on an accepted connection, as Netty sets it on every child channel by default. */
static void no_delay(int fd)
{
    count(C_SYSCALLS, 1);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* ------------------------------------------------------------------------------------------------ control */

static uint64_t at_reset[C_COUNT];

/** The lab's lines on stdin, answered on stdout; a thread of its own, so the loop never looks at stdin. */
static void *control(void *unused)
{
    (void) unused;
    char line[256];
    while (fgets(line, sizeof line, stdin) != NULL) {
        line[strcspn(line, "\r\n")] = 0;
        if (strcmp(line, "RESET") == 0) {
            for (int i = 0; i < C_COUNT; i++) {
                at_reset[i] = __atomic_load_n(&counters[i], __ATOMIC_RELAXED);
            }
            printf("OK\n");
        } else if (strcmp(line, "STATS") == 0) {
            printf("STATS");
            for (int i = 0; i < C_COUNT; i++) {
                if (counted[i]) {
                    printf(" %s=%llu.000", COUNTER_NAMES[i],
                        (unsigned long long) (__atomic_load_n(&counters[i], __ATOMIC_RELAXED) - at_reset[i]));
                }
            }
            printf("\n");
        } else if (strcmp(line, "LIVE") == 0) {
            printf("LIVE\n");
        } else if (strcmp(line, "CONNS") == 0) {
            printf("CONNS directDescriptors=0\n");
        } else {
            printf("ERROR unknown command '%s'\n", line);
        }
        fflush(stdout);
    }
    /* end of input: the lab closed our stdin or is gone */
    exit(0);
    return NULL;
}

/** Prints READY and starts answering the lab. */
static void ready(int port)
{
    printf("READY %d\n", port);
    fflush(stdout);
    pthread_t t;
    if (pthread_create(&t, NULL, control, NULL) != 0) {
        die("pthread_create");
    }
}

#endif
