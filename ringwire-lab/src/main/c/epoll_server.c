/*
 * The lab's epoll reference server (c-epoll): one thread, edge-triggered epoll, read(2) and write(2), as Netty's epoll
 * transport does its I/O but with nothing between the system calls and the bytes. See lab_server.h for the command
 * line, the protocols and the lab's control lines.
 *
 * A ready connection is read until a read returns less than the buffer (the socket is then drained: with edge
 * triggering a further read would only return EAGAIN) or EAGAIN; what goes back is written at once, the receive
 * buffer itself when nothing is waiting before it; a short write keeps the rest and waits for EPOLLOUT, which is
 * asked for only then (as Netty does), so an idle-writable socket costs no wake-ups.
 */
#include "lab_server.h"

#include <signal.h>
#include <sys/epoll.h>

#define READ_BUFFER (64 * 1024)
#define EVENTS 512

struct conn {
    int fd;
    /** Whether EPOLLOUT is asked for (a write was short). */
    int writing;
    struct bytes in;
    struct bytes out;
};

static int epfd;
static enum mode mode;
static uint8_t buffer[READ_BUFFER];

static void close_conn(struct conn *c)
{
    count(C_SYSCALLS, 1);
    close(c->fd); /* removes it from the epoll set: no other descriptor refers to the socket */
    bytes_free(&c->in);
    bytes_free(&c->out);
    free(c);
}

static void want_out(struct conn *c, int on)
{
    if (c->writing == on) {
        return;
    }
    struct epoll_event e = {.events = EPOLLIN | EPOLLRDHUP | EPOLLET | (on ? EPOLLOUT : 0), .data.ptr = c};
    count(C_SYSCALLS, 1);
    if (epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &e) < 0) {
        die("epoll_ctl MOD");
    }
    c->writing = on;
}

/** @return 0, or -1 if the connection failed (to be closed) */
static int flush(struct conn *c)
{
    while (c->out.len > 0) {
        ssize_t n = write(c->fd, c->out.p, c->out.len);
        count(C_SYSCALLS, 1);
        count(C_WRITES, 1);
        count(C_WRITE_IOVECS, 1);
        if (n < 0) {
            if (errno == EAGAIN) {
                want_out(c, 1);
                return 0;
            }
            if (errno == EINTR) {
                continue;
            }
            return -1;
        }
        bytes_consume(&c->out, (size_t) n);
    }
    want_out(c, 0);
    return 0;
}

/**
 * Reads what the socket has and answers it.
 *
 * @param hangup the peer has shut its side (EPOLLRDHUP): read on to the end of the stream, a short read is no sign
 *               of a drained socket then
 * @return 0, or -1 if the connection is to be closed
 */
static int readable(struct conn *c, int hangup)
{
    for (;;) {
        ssize_t n = read(c->fd, buffer, sizeof buffer);
        count(C_SYSCALLS, 1);
        if (n < 0) {
            if (errno == EAGAIN) {
                break;
            }
            if (errno == EINTR) {
                continue;
            }
            return -1;
        }
        if (n == 0) { /* end of stream: what is whole goes out, then the connection closes, as Netty's does */
            flush(c);
            return -1;
        }
        count(C_RECVS, 1);
        count(C_RECV_BYTES, (uint64_t) n);
        if (mode == MODE_ECHO && c->out.len == 0) {
            /* straight from the receive buffer; only what the socket did not take is kept */
            size_t at = 0;
            while (at < (size_t) n) {
                ssize_t w = write(c->fd, buffer + at, (size_t) n - at);
                count(C_SYSCALLS, 1);
                count(C_WRITES, 1);
                count(C_WRITE_IOVECS, 1);
                if (w < 0) {
                    if (errno == EINTR) {
                        continue;
                    }
                    if (errno != EAGAIN) {
                        return -1;
                    }
                    break;
                }
                at += (size_t) w;
            }
            if (at < (size_t) n) {
                bytes_append(&c->out, buffer + at, (size_t) n - at);
                want_out(c, 1);
            }
        } else if (take(mode, &c->in, &c->out, buffer, (size_t) n) < 0) {
            return -1;
        }
        if (n < (ssize_t) sizeof buffer && !hangup) {
            break; /* drained */
        }
    }
    return c->writing ? 0 : flush(c);
}

int main(int argc, char **argv)
{
    int port;
    mode = parse_args(argc, argv, &port);
    signal(SIGPIPE, SIG_IGN); /* a write to a connection the peer closed fails with EPIPE instead */
    counted[C_ENTERS] = counted[C_WRITES] = counted[C_WRITE_IOVECS] = counted[C_RECVS] = counted[C_RECV_BYTES] =
        counted[C_ITERATIONS] = counted[C_ACCEPTED] = counted[C_SYSCALLS] = 1;
    int lfd = listen_loopback(port, SOCK_NONBLOCK);
    epfd = epoll_create1(EPOLL_CLOEXEC);
    if (epfd < 0) {
        die("epoll_create1");
    }
    struct epoll_event le = {.events = EPOLLIN, .data.ptr = NULL};
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, lfd, &le) < 0) {
        die("epoll_ctl ADD listener");
    }
    ready(port);
    struct epoll_event events[EVENTS];
    for (;;) {
        int n = epoll_wait(epfd, events, EVENTS, -1);
        count(C_SYSCALLS, 1);
        count(C_ENTERS, 1);
        count(C_ITERATIONS, 1);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            die("epoll_wait");
        }
        for (int i = 0; i < n; i++) {
            struct conn *c = events[i].data.ptr;
            if (c == NULL) { /* the listener: every pending connection */
                for (;;) {
                    int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
                    count(C_SYSCALLS, 1);
                    if (fd < 0) {
                        if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED) {
                            die("accept4");
                        }
                        if (errno == EAGAIN) {
                            break;
                        }
                        continue;
                    }
                    count(C_ACCEPTED, 1);
                    no_delay(fd);
                    struct conn *nc = calloc(1, sizeof *nc);
                    if (nc == NULL) {
                        die("calloc");
                    }
                    nc->fd = fd;
                    struct epoll_event e = {.events = EPOLLIN | EPOLLRDHUP | EPOLLET, .data.ptr = nc};
                    count(C_SYSCALLS, 1);
                    if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &e) < 0) {
                        die("epoll_ctl ADD");
                    }
                }
                continue;
            }
            uint32_t ev = events[i].events;
            int failed = 0;
            if (ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
                failed = readable(c, (ev & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0) < 0;
            }
            if (!failed && (ev & EPOLLOUT) && c->writing) {
                failed = flush(c) < 0;
            }
            if (failed) {
                close_conn(c);
            }
        }
    }
}
