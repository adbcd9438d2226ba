/*
 * The lab's io_uring reference server (c-io_uring): one thread, liburing, built the way liburing's examples and
 * io_uring's own guidance recommend for a network server: a multishot accept; a multishot receive per connection into
 * a provided buffer ring (no buffer held by an idle connection); a send per connection with bytes to go, one in
 * flight at a time; one io_uring_submit_and_wait per iteration carrying every new SQE and reaping every CQE; the ring
 * set up with SINGLE_ISSUER | DEFER_TASKRUN where the kernel has them (task work then runs only when this thread
 * waits, not as interrupts of its work), else COOP_TASKRUN, else neither. See lab_server.h for the command line, the
 * protocols and the lab's control lines.
 *
 * What a receive brings is copied into its connection's pending output (and, for frames, an unfinished frame into its
 * input), and the buffer goes back to the ring in the same iteration: the buffer ring never runs dry because a slow
 * reader holds buffers. A connection's pending output leaves in one send when no send of it is in flight, so every
 * answer to the receives of one iteration goes out in one SEND, as Netty's flush at the end of a read batch gathers
 * them; a short send goes on from where it stopped.
 */
#include "lab_server.h"

#include <liburing.h>
#include <signal.h>
#include <sys/mman.h>

#define ENTRIES 4096
#define CQ_ENTRIES 16384
/** Provided buffers: a power of two. */
#define BUFFERS 512
/** Bytes each: a receive brings up to this much, as Netty's and Ringwire's reads (64 KiB at most). */
#define BUFFER_SIZE (64 * 1024)
#define GROUP 0

enum op { OP_ACCEPT = 1, OP_RECV = 2, OP_SEND = 3 };

struct conn {
    int fd;
    int recv_armed;
    int sending;
    int closing;
    int dirty;
    struct conn *next_dirty;
    struct bytes in;
    /** What goes back next: filled while a send of flight is in flight. */
    struct bytes out;
    /** What the send in flight sends, from flight_off on. */
    struct bytes flight;
    size_t flight_off;
};

static struct io_uring ring;
static struct io_uring_buf_ring *buffer_ring;
static uint8_t *buffers;
static int returned; /* buffers given back to the ring this iteration, not yet published */
static enum mode mode;
static int listener;
static struct conn *dirty;

static struct io_uring_sqe *sqe(void)
{
    struct io_uring_sqe *s = io_uring_get_sqe(&ring);
    while (s == NULL) { /* the SQ is full: submit what it holds, without waiting */
        int n = io_uring_submit(&ring);
        count(C_SYSCALLS, 1);
        count(C_ENTERS, 1);
        if (n > 0) {
            count(C_SQES, (uint64_t) n);
        }
        s = io_uring_get_sqe(&ring);
    }
    return s;
}

static void arm_accept(void)
{
    struct io_uring_sqe *s = sqe();
    io_uring_prep_multishot_accept(s, listener, NULL, NULL, SOCK_CLOEXEC);
    io_uring_sqe_set_data64(s, OP_ACCEPT);
}

static void arm_recv(struct conn *c)
{
    struct io_uring_sqe *s = sqe();
    io_uring_prep_recv_multishot(s, c->fd, NULL, 0, 0);
    s->flags |= IOSQE_BUFFER_SELECT;
    s->buf_group = GROUP;
    io_uring_sqe_set_data64(s, (uint64_t) (uintptr_t) c | OP_RECV);
    c->recv_armed = 1;
}

static void send_flight(struct conn *c)
{
    struct io_uring_sqe *s = sqe();
    io_uring_prep_send(s, c->fd, c->flight.p + c->flight_off, c->flight.len - c->flight_off, MSG_NOSIGNAL);
    io_uring_sqe_set_data64(s, (uint64_t) (uintptr_t) c | OP_SEND);
    c->sending = 1;
    count(C_WRITES, 1);
    count(C_WRITE_IOVECS, 1);
}

static void mark_dirty(struct conn *c)
{
    if (!c->dirty) {
        c->dirty = 1;
        c->next_dirty = dirty;
        dirty = c;
    }
}

/** Frees a closing connection once no operation of it is in flight and it is off the dirty list. */
static void maybe_free(struct conn *c)
{
    if (!c->closing || c->recv_armed || c->sending || c->dirty) {
        return;
    }
    count(C_SYSCALLS, 1);
    close(c->fd);
    bytes_free(&c->in);
    bytes_free(&c->out);
    bytes_free(&c->flight);
    free(c);
}

/** Starts closing: the armed receive is ended by shutting the socket down, the send in flight ends by itself. */
static void start_close(struct conn *c)
{
    if (!c->closing) {
        c->closing = 1;
        c->out.len = 0;
        if (c->recv_armed) {
            count(C_SYSCALLS, 1);
            shutdown(c->fd, SHUT_RDWR);
        }
    }
    maybe_free(c);
}

static void give_back(unsigned bid)
{
    io_uring_buf_ring_add(buffer_ring, buffers + (size_t) bid * BUFFER_SIZE, BUFFER_SIZE, (unsigned short) bid,
        io_uring_buf_ring_mask(BUFFERS), returned++);
}

static void on_accept(struct io_uring_cqe *cqe)
{
    if (!(cqe->flags & IORING_CQE_F_MORE)) {
        arm_accept();
    }
    if (cqe->res < 0) {
        return;
    }
    count(C_ACCEPTED, 1);
    no_delay(cqe->res);
    struct conn *c = calloc(1, sizeof *c);
    if (c == NULL) {
        die("calloc");
    }
    c->fd = cqe->res;
    arm_recv(c);
}

static void on_recv(struct conn *c, struct io_uring_cqe *cqe)
{
    int more = (cqe->flags & IORING_CQE_F_MORE) != 0;
    if (!more) {
        c->recv_armed = 0;
    }
    if (cqe->flags & IORING_CQE_F_BUFFER) {
        unsigned bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
        if (cqe->res > 0) {
            count(C_RECVS, 1);
            count(C_RECV_BYTES, (uint64_t) cqe->res);
            if (!c->closing) {
                if (take(mode, &c->in, &c->out, buffers + (size_t) bid * BUFFER_SIZE, (size_t) cqe->res) < 0) {
                    start_close(c);
                } else if (c->out.len > 0) {
                    mark_dirty(c);
                }
            }
        }
        give_back(bid);
    }
    if (more) {
        return;
    }
    if (cqe->res == -ENOBUFS) {
        count(C_EXHAUSTED, 1);
    }
    if (!c->closing && (cqe->res > 0 || cqe->res == -ENOBUFS)) {
        arm_recv(c); /* the multishot receive ended without the stream ending (buffers ran out, ...): again */
    } else {
        start_close(c); /* end of stream, or failed */
    }
}

static void on_send(struct conn *c, struct io_uring_cqe *cqe)
{
    c->sending = 0;
    if (cqe->res < 0) {
        start_close(c);
        return;
    }
    c->flight_off += (size_t) cqe->res;
    if (c->flight_off < c->flight.len && !c->closing) {
        send_flight(c); /* a short send: on from where it stopped */
        return;
    }
    c->flight.len = 0;
    c->flight_off = 0;
    if (c->closing) {
        maybe_free(c);
    } else if (c->out.len > 0) {
        mark_dirty(c);
    }
}

/** One send for every connection with output pending and none in flight. */
static void flush_dirty(void)
{
    while (dirty != NULL) {
        struct conn *c = dirty;
        dirty = c->next_dirty;
        c->dirty = 0;
        if (c->closing) {
            maybe_free(c);
            continue;
        }
        if (c->sending || c->out.len == 0) {
            continue; /* its send's completion marks it again */
        }
        struct bytes t = c->flight;
        c->flight = c->out;
        c->out = t;
        c->out.len = 0;
        c->flight_off = 0;
        send_flight(c);
    }
}

static const char *setup(void)
{
    struct io_uring_params p;
    static const struct {
        unsigned flags;
        const char *name;
    } tries[] = {
        {IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN, "SINGLE_ISSUER|DEFER_TASKRUN"},
        {IORING_SETUP_COOP_TASKRUN, "COOP_TASKRUN"},
        {0, "none"},
    };
    int ret = -EINVAL;
    for (size_t i = 0; i < sizeof tries / sizeof tries[0]; i++) {
        memset(&p, 0, sizeof p);
        p.flags = tries[i].flags | IORING_SETUP_CQSIZE;
        p.cq_entries = CQ_ENTRIES;
        ret = io_uring_queue_init_params(ENTRIES, &ring, &p);
        if (ret == 0) {
            return tries[i].name;
        }
        if (ret != -EINVAL) {
            break;
        }
    }
    errno = -ret;
    die("io_uring_queue_init_params");
    return NULL;
}

static void setup_buffers(void)
{
    size_t ring_bytes = BUFFERS * sizeof(struct io_uring_buf);
    buffer_ring = mmap(NULL, ring_bytes, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
    buffers = mmap(NULL, (size_t) BUFFERS * BUFFER_SIZE, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
    if (buffer_ring == MAP_FAILED || buffers == MAP_FAILED) {
        die("mmap");
    }
    io_uring_buf_ring_init(buffer_ring);
    struct io_uring_buf_reg reg = {.ring_addr = (uint64_t) (uintptr_t) buffer_ring, .ring_entries = BUFFERS,
        .bgid = GROUP};
    int ret = io_uring_register_buf_ring(&ring, &reg, 0);
    if (ret < 0) {
        errno = -ret;
        die("io_uring_register_buf_ring");
    }
    for (unsigned i = 0; i < BUFFERS; i++) {
        give_back(i);
    }
    io_uring_buf_ring_advance(buffer_ring, returned);
    returned = 0;
}

int main(int argc, char **argv)
{
    int port;
    mode = parse_args(argc, argv, &port);
    signal(SIGPIPE, SIG_IGN);
    for (int i = 0; i < C_COUNT; i++) {
        counted[i] = 1;
    }
    listener = listen_loopback(port, 0);
    const char *flags = setup();
    setup_buffers();
    printf("c-io_uring: ring set up with %s, %d buffers of %d KiB\n", flags, BUFFERS, BUFFER_SIZE / 1024);
    arm_accept();
    ready(port);
    for (;;) {
        flush_dirty();
        int n = io_uring_submit_and_wait(&ring, 1); /* always enters: it waits for one */
        count(C_SYSCALLS, 1);
        count(C_ENTERS, 1);
        count(C_ITERATIONS, 1);
        if (n < 0 && n != -EINTR && n != -EAGAIN && n != -EBUSY) {
            errno = -n;
            die("io_uring_submit_and_wait");
        }
        if (n > 0) {
            count(C_SQES, (uint64_t) n);
        }
        unsigned head;
        unsigned seen = 0;
        struct io_uring_cqe *cqe;
        io_uring_for_each_cqe(&ring, head, cqe) {
            seen++;
            uint64_t data = io_uring_cqe_get_data64(cqe);
            struct conn *c = (struct conn *) (uintptr_t) (data & ~(uint64_t) 3);
            switch ((enum op) (data & 3)) {
            case OP_ACCEPT:
                on_accept(cqe);
                break;
            case OP_RECV:
                on_recv(c, cqe);
                break;
            case OP_SEND:
                on_send(c, cqe);
                break;
            }
        }
        io_uring_cq_advance(&ring, seen);
        count(C_CQES, seen);
        if (returned > 0) {
            io_uring_buf_ring_advance(buffer_ring, returned);
            returned = 0;
        }
    }
}
