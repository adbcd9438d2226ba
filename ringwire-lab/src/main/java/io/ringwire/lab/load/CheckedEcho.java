package io.ringwire.lab.load;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The echo client of the generators built on Netty (quic, tls-echo): on one event loop, every {@link Peer} (a
 * connection, or a QUIC stream) keeps {@code depth} messages of {@code size} bytes in flight (closed loop). A message
 * is an {@link EchoPayload}; the echo is reassembled and checked byte for byte. Counts and latencies are kept from
 * the start and reset when the window opens ({@link MeasuredWindow} says why). One run each: a generator makes a new
 * one per run.
 */
final class CheckedEcho {
    private final int size;
    private final EchoPayload payload;
    private final int depth;
    private final List<Peer> peers = new ArrayList<>();
    private final Histogram latency = new Histogram(60_000_000_000L, 3);
    private MeasuredWindow window;
    private long messages;
    private long sent;
    private long mismatches;
    private long errors;

    CheckedEcho(int size, int depth) {
        if (depth < 1) {
            throw new IllegalArgumentException("need depth ≥ 1: " + depth);
        }
        this.payload = new EchoPayload(size); // checks size
        this.size = size;
        this.depth = depth;
    }

    /** @return a new peer's handler, for the pipeline of the channel it drives (one each) */
    Peer newPeer() {
        Peer p = new Peer();
        peers.add(p);
        return p;
    }

    /**
     * Starts every peer on {@code loop} (the one all peers' channels are on) and waits for the window to close.
     *
     * @return what the window saw
     */
    LoadGenerator.Result run(EventLoop loop, BooleanSupplier warmupOver, double seconds, Runnable onWindow)
        throws InterruptedException, ExecutionException {
        CompletableFuture<LoadGenerator.Result> done = new CompletableFuture<>();
        loop.execute(() -> {
            // mismatches and errors count from the start: one in the warm-up is as wrong as one in the window
            window = new MeasuredWindow(warmupOver, seconds, onWindow, () -> {
                latency.reset();
                messages = 0;
                sent = 0;
            });
            long now = System.nanoTime();
            for (Peer p : peers) {
                p.fill(now);
            }
        });
        var tick = loop.scheduleAtFixedRate(() -> {
            long now = System.nanoTime();
            if (!done.isDone() && window != null && window.tick(now)) {
                for (Peer p : peers) {
                    if (p.outstanding > 0 && now - p.waitingSince >= (long) (seconds * 1e9)) {
                        errors++; // stalled: nothing came back for the whole window
                    }
                }
                done.complete(window.close(messages, sent, latency, mismatches, errors));
            }
        }, 10, 10, TimeUnit.MILLISECONDS);
        try {
            return done.get();
        } finally {
            tick.cancel(false);
        }
    }

    /**
     * One connection's (or stream's) messages: sends them once {@link #run} has started (not before: a TLS
     * handshake's channelReadComplete would send early), reassembles and checks their echoes.
     */
    final class Peer extends ChannelInboundHandlerAdapter {
        private Channel ch;
        private ByteBuf pending;
        private long nextSeq;
        private long expectSeq;
        private int outstanding;
        /** Since when it has waited for an answer (its last answer, or its first send after none was due). */
        private long waitingSince;

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            ch = ctx.channel();
            pending = ctx.alloc().buffer(size * 2);
        }

        void fill(long now) {
            if (window == null || outstanding >= depth || !ch.isActive()) {
                return;
            }
            if (outstanding == 0) {
                waitingSince = now;
            }
            while (outstanding < depth) {
                ByteBuf m = ch.alloc().directBuffer(size);
                payload.write(m, nextSeq++, now);
                ch.write(m);
                sent++;
                outstanding++;
            }
            ch.flush();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            if (pending == null) {
                in.release();
                return;
            }
            pending.writeBytes(in);
            in.release();
            long now = System.nanoTime();
            while (pending.readableBytes() >= size) {
                int at = pending.readerIndex();
                long seq = pending.getLong(at);
                long sentAt = pending.getLong(at + 8);
                if (seq != expectSeq) {
                    mismatches++;
                }
                expectSeq = seq + 1;
                mismatches += payload.mismatches(pending, at, size, seq);
                pending.skipBytes(size);
                outstanding--;
                waitingSince = now;
                messages++; // always, so that the window's opening (which resets them) changes no branch
                latency.recordValue(Math.max(0, now - sentAt));
            }
            pending.discardReadBytes();
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            fill(System.nanoTime());
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            errors++;
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            if (pending != null) {
                pending.release();
                pending = null;
            }
        }
    }
}
