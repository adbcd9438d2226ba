package io.ringwire.lab.experiment;

import io.ringwire.lab.load.FileLoadGenerator;
import io.ringwire.lab.load.LoadGenerator;
import io.ringwire.lab.load.QuicLoadGenerator;
import io.ringwire.lab.load.RedisBenchmark;
import io.ringwire.lab.load.TlsLoadGenerator;
import io.ringwire.lab.load.UdpLoadGenerator;
import io.ringwire.lab.load.WrkBenchmark;
import io.ringwire.lab.report.Summary;
import io.ringwire.lab.results.Sources;
import io.ringwire.lab.server.Protocol;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * The published experiments ({@link Sources}) as {@link Experiment}s; parameters default to the values the README
 * and --help give.
 */
public final class Workloads {
    private Workloads() { }

    /**
     * Netty's announcement: raw echo, closed loop ({@code rate == 0}) or open loop at a fixed rate (then primed
     * first).
     */
    public static Experiment echo(Experiment.Settings s, int conns, int size, int depth, double rate) {
        LoadGenerator.Config c = rate > 0 ? new LoadGenerator.Config(conns, size, 1, 0, rate, 1, 1)
            : LoadGenerator.Config.closed(conns, size, depth);
        String variant = rate > 0
            ? String.format(Locale.ROOT, "%d conns × %d B at %s msgs/s", conns, size, Summary.compact(rate))
            : String.format(Locale.ROOT, "%d conns × %d B × %d in flight", conns, size, depth);
        Experiment e = new Experiment("echo", variant, Protocol.ECHO, s, Experiment.generator(c, s))
            .rehearsingFrameGenerator();
        return rate > 0 ? e.primed(size) : e;
    }

    /** Echo over every (size, conns) pair: the sweeps. */
    public static List<Experiment> echoSweep(Experiment.Settings s, List<Integer> conns, List<Integer> sizes, int depth,
                                      double rate) {
        List<Experiment> out = new ArrayList<>();
        for (int size : sizes) {
            for (int n : conns) {
                out.add(echo(s, n, size, depth, rate));
            }
        }
        return out;
    }

    /** The RSocket evaluation's back end: few connections, each multiplexing many finite streams. */
    public static Experiment rpcBackend(Experiment.Settings s, int conns, int streams, int messages, int size) {
        return rpcBackend(s, conns, streams, messages, size, false);
    }

    /** @param pausing whether the servers pause reading for every frame until its echo is written */
    public static Experiment rpcBackend(Experiment.Settings s, int conns, int streams, int messages, int size,
                                        boolean pausing) {
        LoadGenerator.Config c = new LoadGenerator.Config(conns, size, streams, messages, 0, 1, 1);
        return new Experiment("rpc-backend", String.format(Locale.ROOT, "%d conns × %d streams × %d msgs × %d B%s",
            conns, streams, messages, size, pausing ? ", autoRead off per message" : ""),
            pausing ? Protocol.PAUSING : Protocol.FRAMES, s, Experiment.generator(c, s)).rehearsingFrameGenerator();
    }

    /**
     * The RSocket evaluation's front end: many connections, long-lived streams, messages at a fixed total rate (open
     * loop; primed first).
     */
    public static Experiment rpcFrontend(Experiment.Settings s, int conns, int streams, double rate, int batch, int size) {
        LoadGenerator.Config c = new LoadGenerator.Config(conns, size, 1, 0, rate, streams, batch);
        return new Experiment("rpc-frontend", String.format(Locale.ROOT,
            "%d conns × %d streams, %s msgs/s in batches of %d, %d B", conns, streams, Summary.compact(rate), batch,
            size), Protocol.FRAMES, s, Experiment.generator(c, s)).primed(size).rehearsingFrameGenerator();
    }

    /**
     * UDP echo: {@code clients} sockets, each with {@code depth} datagrams of {@code size} bytes in flight; the
     * servers echo each to its sender (many small datagrams, where one multishot RECVMSG can bring many).
     */
    public static Experiment udpEcho(Experiment.Settings s, int clients, int size, int depth) {
        return new Experiment("udp-echo", String.format(Locale.ROOT, "%d clients × %d B × %d in flight", clients,
            size, depth), Protocol.UDP_ECHO, s, (target, warmupOver, edge) ->
                new UdpLoadGenerator(target, clients, size, depth).run(warmupOver, s.seconds(), edge).measurement(false))
            .rehearsingGenerator("udp");
    }

    /**
     * QUIC echo: {@code conns} connections of one stream each, {@code depth} messages of {@code size} bytes in flight
     * per stream; Netty's QUIC codec on each Netty transport's UDP channel, with GSO where the transport has it.
     */
    public static Experiment quic(Experiment.Settings s, int conns, int size, int depth) {
        return quicOrTls("quic", Protocol.QUIC, s, conns, size, depth);
    }

    /**
     * TLS echo: {@code conns} TLS 1.3 connections, {@code depth} messages of {@code size} bytes in flight on each;
     * Netty's SslHandler in front of the echo handler on each Netty transport, the same engine on every server.
     */
    public static Experiment tlsEcho(Experiment.Settings s, int conns, int size, int depth) {
        return quicOrTls("tls-echo", Protocol.TLS_ECHO, s, conns, size, depth);
    }

    private static Experiment quicOrTls(String name, Protocol protocol, Experiment.Settings s, int conns, int size,
                                        int depth) {
        return new Experiment(name, String.format(Locale.ROOT, "%d conns × %d B × %d in flight", conns, size,
            depth), protocol, s, (target, warmupOver, edge) -> (protocol == Protocol.QUIC
                ? new QuicLoadGenerator(target, conns, size, depth) : new TlsLoadGenerator(target, conns, size, depth))
                .run(warmupOver, s.seconds(), edge).measurement(false))
            .rehearsingGenerator(protocol == Protocol.QUIC ? "quic" : "tls");
    }

    /** Netty's announcement's echo over Unix domain sockets: the same load, to a socket file instead of a TCP port. */
    public static Experiment domainEcho(Experiment.Settings s, int conns, int size, int depth) {
        LoadGenerator.Config c = LoadGenerator.Config.closed(conns, size, depth);
        return new Experiment("domain-echo", String.format(Locale.ROOT, "%d conns × %d B × %d in flight", conns,
            size, depth), Protocol.DOMAIN_ECHO, s, (target, warmupOver, edge) -> new LoadGenerator(
                java.net.UnixDomainSocketAddress.of(Protocol.domainSocketPath(target.getPort())), c, s.generator())
                .run(warmupOver, s.seconds(), edge).measurement(false)).rehearsingFrameGenerator();
    }

    /**
     * File serving: {@code conns} connections each fetching a file of {@code size} bytes again and again; the servers
     * answer with a DefaultFileRegion made from a File (sendfile on the native transports) or, with
     * {@code fromChannel}, from a FileChannel (which Ringwire copies: the JDK keeps its descriptor private).
     */
    public static Experiment files(Experiment.Settings s, int conns, long size, boolean fromChannel) {
        return new Experiment("files", String.format(Locale.ROOT, "%d conns × %s files, regions from a %s", conns,
            Summary.compact(size) + "B", fromChannel ? "FileChannel" : "File"), Protocol.FILES, s,
            (target, warmupOver, edge) -> new FileLoadGenerator(target, conns, size, fromChannel)
                .run(warmupOver, s.seconds(), edge).measurement(false)).rehearsingGenerator("files");
    }

    /**
     * The RSocket evaluation's front end at scale: {@code conns} connections, each sending one {@code size}-byte
     * message every {@code intervalSeconds} (open loop, the connections in turn, so the offered rate is conns /
     * interval), every server's memory per connection measured besides its CPU at that load and the latency.
     */
    static Experiment conns(Experiment.Settings s, int conns, int size, double intervalSeconds) {
        return conns(s, conns, size, intervalSeconds, "");
    }

    /**
     * The conns workload with a note on its row, e.g. why it holds fewer connections than were asked for.
     *
     * @param note appended to the parameters, in parentheses; empty for none
     */
    static Experiment conns(Experiment.Settings s, int conns, int size, double intervalSeconds, String note) {
        double rate = conns / intervalSeconds;
        LoadGenerator.Config c = new LoadGenerator.Config(conns, size, 1, 0, rate, 1, 1);
        Experiment.PerConnection p = new Experiment.PerConnection(conns);
        return new Experiment("conns", String.format(Locale.ROOT, "%,d conns × %d B every %s s%s", conns, size,
            Summary.compact(intervalSeconds), note.isEmpty() ? "" : " (" + note + ")"), Protocol.ECHO, s,
            (target, warmupOver, edge) -> {
                LoadGenerator.Result r = new LoadGenerator(target, c, s.generator()).run(warmupOver, s.seconds(),
                    edge);
                p.connected(r.connectSeconds());
                return r.measurement(true);
            }).primed(size).measuringConnections(p).rehearsingFrameGenerator();
    }

    /** The RSocket evaluation's single stream: one connection, a flood of frames with a large window. */
    public static Experiment singleStream(Experiment.Settings s, int size, int window) {
        LoadGenerator.Config c = LoadGenerator.Config.closed(1, size, window);
        return new Experiment("single-stream", String.format(Locale.ROOT, "1 conn × %d B, window %d", size, window),
            Protocol.FRAMES, s, Experiment.generator(c, s)).rehearsingFrameGenerator();
    }

    /**
     * The critique's load: redis-benchmark against each server's SET/GET store, one experiment per client count.
     *
     * @return nothing when redis-benchmark is missing and cannot be installed ({@code note} says why)
     */
    public static List<Experiment> redis(Experiment.Settings s, String command, List<Integer> clients, int size,
                                  Consumer<String> note) {
        String program = RedisBenchmark.locate(note);
        if (program == null) {
            return List.of();
        }
        List<Experiment> out = new ArrayList<>();
        for (int c : clients) {
            out.add(new Experiment("redis", String.format(Locale.ROOT, "%s %d B, %d clients",
                command.toUpperCase(Locale.ROOT), size, c), Protocol.REDIS, s,
                RedisBenchmark.driver(program, command, c, size, s.seconds())));
        }
        return out;
    }

    /**
     * Lettuce as the client, Ringwire's side of a connection it opens: each client ({@link Competitor#lettuceClients})
     * in a fresh JVM against one fresh redis-server per run ({@link ClientRuns}). SET and GET of every size at every
     * number of commands in flight; with {@code batch > 0} pipelined batches of that many (SET and GET pairs, the
     * first size); with {@code rate > 0} GETs of the first size at that fixed rate.
     *
     * @return nothing when redis-server is missing and cannot be installed ({@code note} says why)
     */
    public static List<Experiment> redisClient(Experiment.Settings s, List<String> commands, List<Integer> sizes,
                                               List<Integer> depths, int batch, double rate, Consumer<String> note) {
        String program = io.ringwire.lab.server.RedisServerProcess.locate(note);
        if (program == null) {
            return List.of();
        }
        List<Experiment> out = new ArrayList<>();
        for (String command : commands) {
            for (int size : sizes) {
                for (int depth : depths) {
                    out.add(redisClient(s, program, command, size, depth, 0));
                }
            }
        }
        if (batch > 0) {
            out.add(redisClient(s, program, "pipeline", sizes.get(0), batch, 0));
        }
        if (rate > 0) {
            out.add(redisClient(s, program, "rate", sizes.get(0), 1, rate));
        }
        return out;
    }

    private static Experiment redisClient(Experiment.Settings s, String program, String mode, int size, int depth,
                                          double rate) {
        return new Experiment("redis-client", redisClientVariant(mode, size, depth, rate), s,
            new ClientRuns(program, s, mode, size, depth, rate));
    }

    /** @return a redis-client experiment's parameters, e.g. "GET 16 B, 16 in flight" */
    static String redisClientVariant(String mode, int size, int depth, double rate) {
        String bytes = size % 1024 == 0 ? size / 1024 + " KiB" : size + " B";
        return switch (mode) {
            case "pipeline" -> String.format(Locale.ROOT, "SET+GET %s, pipelined batches of %d", bytes, depth);
            case "rate" -> String.format(Locale.ROOT, "GET %s at %s commands/s", bytes, Summary.compact(rate));
            default -> String.format(Locale.ROOT, "%s %s, %d in flight", mode.toUpperCase(Locale.ROOT), bytes, depth);
        };
    }

    /**
     * HTTP "Hello, World!" driven by wrk (TechEmpower's plaintext shape), one experiment per connection count and
     * pipeline depth; none if wrk cannot be found or installed ({@code note} says why).
     *
     * @param rate requests per second, paced ({@link WrkBenchmark}); 0: as fast as each server answers
     */
    public static List<Experiment> http(Experiment.Settings s, List<Integer> connections, List<Integer> depths, double rate,
                                 Consumer<String> note) {
        String program = WrkBenchmark.locate(note);
        if (program == null) {
            return List.of();
        }
        List<Experiment> out = new ArrayList<>();
        for (int depth : depths) {
            for (int c : connections) {
                double period = WrkBenchmark.periodMillis(c, depth, rate);
                if (period < WrkBenchmark.ROUGH_PACE_MILLIS) {
                    note.accept(String.format(Locale.ROOT, "http at %d conns%s, %.0f req/s: each connection writes "
                        + "every %.1f ms, and wrk's timer counts whole ms; below %.0f ms the pace is rough (at 3.2 ms "
                        + "runs reached 0.8-1.4 × the rate asked; the table shows what each reached): more "
                        + "connections or a lower rate pace closer", c, depth > 1 ? " × " + depth + " pipelined" : "",
                        rate, period, WrkBenchmark.ROUGH_PACE_MILLIS));
                }
                out.add(new Experiment("http", String.format(Locale.ROOT, "%d conns, %s%s", c,
                    depth > 1 ? depth + " pipelined" : "no pipelining",
                    rate > 0 ? String.format(Locale.ROOT, ", %.0f req/s", rate) : ""), Protocol.HTTP, s,
                    WrkBenchmark.driver(program, c, depth, rate, s.seconds())));
            }
        }
        return out;
    }
}
