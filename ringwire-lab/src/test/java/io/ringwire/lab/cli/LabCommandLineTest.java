package io.ringwire.lab.cli;

import io.ringwire.lab.experiment.Experiment;
import io.ringwire.lab.experiment.Workloads;
import io.ringwire.lab.report.LabReport;
import io.ringwire.lab.server.Competitor;
import io.ringwire.lab.server.Protocol;
import io.ringwire.lab.server.ServerJvm;
import io.ringwire.lab.server.ServerProcess;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The command line parses into what the workloads get; nothing runs. */
class LabCommandLineTest {
    @Test
    void shouldParseAWorkloadWithSharedAndOwnOptions() {
        CommandLine cl = new CommandLine(new Lab());
        CommandLine.ParseResult parsed = cl.parseArgs("rpc-backend", "--servers", "ringwire,netty-epoll",
            "--rounds", "3", "--conns", "4", "--streams", "50");
        Lab.RpcBackend cmd = (Lab.RpcBackend) parsed.subcommand().commandSpec().userObject();
        assertEquals(4, cmd.conns);
        assertEquals(50, cmd.streams);
        assertEquals(32, cmd.messages, "default");
        Experiment.Settings s = cmd.common.settings();
        assertEquals(List.of(Competitor.RINGWIRE, Competitor.NETTY_EPOLL), s.servers());
        assertEquals(3, s.rounds());
        assertEquals(2.0, s.warmupSeconds());
        assertEquals(6.0, s.maxWarmupSeconds());
    }

    @Test
    void shouldGiveHttpItsLongerWarmUpUnlessMaxWarmupIsGiven() {
        Lab.Http http = (Lab.Http) new CommandLine(new Lab()).parseArgs("http", "--conns", "64")
            .subcommand().commandSpec().userObject();
        assertEquals(Lab.HTTP_MAX_WARMUP, http.common.httpSettings(http.common.settings()).maxWarmupSeconds());
        assertEquals(Lab.DEFAULT_MAX_WARMUP, http.common.settings().maxWarmupSeconds(), "other workloads");

        Lab.Http given = (Lab.Http) new CommandLine(new Lab()).parseArgs("http", "--max-warmup", "4")
            .subcommand().commandSpec().userObject();
        assertEquals(4.0, given.common.httpSettings(given.common.settings()).maxWarmupSeconds());

        Lab.All all = (Lab.All) new CommandLine(new Lab()).parseArgs("all", "--max-warmup", "9")
            .subcommand().commandSpec().userObject();
        assertEquals(9.0, all.common.httpSettings(all.common.settings()).maxWarmupSeconds());
    }

    @Test
    void shouldGiveClientJvmsTheLongerWarmUpUnlessMaxWarmupIsGiven() {
        RedisClientCommand client = (RedisClientCommand) new CommandLine(new Lab()).parseArgs("redis-client")
            .subcommand().commandSpec().userObject();
        assertEquals(Lab.CLIENT_MAX_WARMUP, client.common.clientSettings(client.common.settings()).maxWarmupSeconds());

        RedisClientCommand given = (RedisClientCommand) new CommandLine(new Lab())
            .parseArgs("redis-client", "--max-warmup", "4").subcommand().commandSpec().userObject();
        assertEquals(4.0, given.common.clientSettings(given.common.settings()).maxWarmupSeconds());
    }

    @Test
    void shouldMakeSweepsFromLists() {
        CommandLine cl = new CommandLine(new Lab());
        CommandLine.ParseResult parsed = cl.parseArgs("echo", "--conns", "1,100", "--size", "64,1024");
        Lab.Echo cmd = (Lab.Echo) parsed.subcommand().commandSpec().userObject();
        assertEquals(4, Workloads.echoSweep(cmd.common.settings(), cmd.conns, cmd.sizes, cmd.depth, cmd.rate).size());
    }

    @Test
    void shouldRunTheMinWaitVariantBesideRingwireAtAFixedLoadUnlessServersAreNamed() {
        CommandLine.ParseResult parsed = new CommandLine(new Lab()).parseArgs("rpc-frontend");
        Lab.RpcFrontend cmd = (Lab.RpcFrontend) parsed.subcommand().commandSpec().userObject();
        assertEquals(List.of(Competitor.RINGWIRE, Competitor.RINGWIRE_MIN_WAIT, Competitor.NETTY_IO_URING,
            Competitor.NETTY_EPOLL, Competitor.NETTY_NIO, Competitor.BLOCKING_PLATFORM, Competitor.BLOCKING_VIRTUAL),
            cmd.common.fixedLoadSettings().servers());
        assertEquals(Competitor.standard(), cmd.common.settings().servers(), "the closed-loop workloads: the six");
        parsed = new CommandLine(new Lab()).parseArgs("echo", "--rate", "1000", "--servers", "ringwire,netty-epoll");
        Lab.Echo named = (Lab.Echo) parsed.subcommand().commandSpec().userObject();
        assertEquals(List.of(Competitor.RINGWIRE, Competitor.NETTY_EPOLL), named.common.fixedLoadSettings().servers(),
            "servers named on the command line are the ones that run");
        assertEquals(List.of(Competitor.NETTY_EPOLL), Competitor.withMinWait(List.of(Competitor.NETTY_EPOLL)));
        assertEquals(Competitor.RINGWIRE_MIN_WAIT, Competitor.of("ringwire-minwait"));
    }

    @Test
    void shouldGiveOnlyTheVariantItsSettingOnTopOfTheFlagsEveryServerGets() {
        List<String> variant = ServerProcess.command(Competitor.RINGWIRE_MIN_WAIT, 4000, Protocol.ECHO, 1,
            ServerJvm.DEFAULT);
        List<String> plain = ServerProcess.command(Competitor.RINGWIRE, 4000, Protocol.ECHO, 1, ServerJvm.DEFAULT);
        List<String> epoll = ServerProcess.command(Competitor.NETTY_EPOLL, 4000, Protocol.ECHO, 1,
            ServerJvm.DEFAULT);
        assertTrue(variant.contains("-Dringwire.minWaitMicros=" + Competitor.MIN_WAIT_MICROS), variant::toString);
        assertTrue(variant.containsAll(ServerJvm.DEFAULT.flags()), variant::toString);
        assertTrue(plain.stream().noneMatch(a -> a.startsWith("-Dringwire.")), plain::toString);
        assertTrue(epoll.stream().noneMatch(a -> a.startsWith("-Dringwire.")), epoll::toString);
        assertEquals("ringwire", Competitor.RINGWIRE_MIN_WAIT.transport(), "it runs the examples on Ringwire");
    }

    @Test
    void quickIsTheFixedRateEchoAndRpcBackendOnRingwireAndNettysNativeTransports() {
        Lab quick = new Lab();
        new CommandLine(quick).parseArgs("--quick");
        List<Experiment> suite = quick.suite();
        assertEquals(List.of("echo", "rpc-backend"), suite.stream().map(Experiment::workload).toList());
        assertEquals("500 conns × 128 B at 20k msgs/s", suite.get(0).variant());
        for (Experiment e : suite) {
            assertEquals(List.of(Competitor.RINGWIRE, Competitor.NETTY_IO_URING, Competitor.NETTY_EPOLL),
                e.settings().servers());
            assertEquals(2, e.settings().rounds());
        }
        assertEquals(12, suite.stream().mapToInt(Experiment::runs).sum());

        Lab named = new Lab();
        new CommandLine(named).parseArgs("--quick", "--servers", "ringwire,netty-nio", "--rounds", "3");
        assertEquals(List.of(Competitor.RINGWIRE, Competitor.NETTY_NIO), named.suite().get(0).settings().servers());
        assertEquals(3, named.suite().get(1).settings().rounds());

        Lab full = new Lab();
        new CommandLine(full).parseArgs();
        assertEquals(List.of("echo", "echo", "rpc-backend", "single-stream"),
            full.suite().stream().map(Experiment::workload).toList());
        assertEquals(50, full.suite().stream().mapToInt(Experiment::runs).sum());
    }

    @Test
    void everyOutputOptionIsInTheHelpAndQuietAndWideExcludeEachOther() {
        StringWriter out = new StringWriter();
        assertEquals(0, new CommandLine(new Lab()).setOut(new PrintWriter(out)).execute("--help"));
        for (String option : List.of("--quick", "--wide", "--quiet")) {
            assertTrue(out.toString().lines().anyMatch(l -> l.trim().startsWith(option + " ")
                && l.trim().length() > option.length() + 10), () -> option + " described: " + out);
        }
        StringWriter echoHelp = new StringWriter();
        new CommandLine(new Lab()).setOut(new PrintWriter(echoHelp)).execute("echo", "--help");
        assertTrue(echoHelp.toString().contains("--quiet") && echoHelp.toString().contains("--wide"),
            echoHelp::toString);

        Lab.Echo echo = (Lab.Echo) new CommandLine(new Lab()).parseArgs("echo", "--quiet").subcommand().commandSpec()
            .userObject();
        assertEquals(LabReport.Detail.QUIET, echo.common.detail());
        StringWriter err = new StringWriter();
        int code = new CommandLine(new Lab()).setErr(new PrintWriter(err)).execute("--quick", "--quiet", "--wide");
        assertEquals(2, code, err::toString);
        assertTrue(err.toString().contains("--quiet and --wide exclude each other"), err::toString);
    }

    @Test
    void shouldExplainEveryWorkloadInHelpAndRefuseUnknownServers() {
        StringWriter out = new StringWriter();
        CommandLine cl = new CommandLine(new Lab()).setOut(new PrintWriter(out));
        assertEquals(0, cl.execute("--help"));
        for (String w : List.of("echo", "rpc-backend", "rpc-frontend", "single-stream", "redis", "cost-model", "all",
            "probe")) {
            assertTrue(out.toString().contains(w), w);
        }
        StringWriter err = new StringWriter();
        int code = new CommandLine(new Lab()).setErr(new PrintWriter(err))
            .setExecutionExceptionHandler((e, line, p) -> 2).execute("echo", "--servers", "netty-kqueue");
        assertEquals(2, code, "an unknown server is refused before anything starts");
    }

    @Test
    void theHelpCitesEachPublishedSourceByTitleAndLinkAndNeverByAPrivateLabel() {
        CommandLine lab = new CommandLine(new Lab());
        Map<String, String> help = new LinkedHashMap<>();
        help.put("lab", lab.getUsageMessage());
        lab.getSubcommands().forEach((name, c) -> help.put(name, c.getUsageMessage()));
        // the project's own names for the texts ("seed 001", "the seeds' experiments") mean nothing to a user
        Pattern label = Pattern.compile("(?i)\\bseeds?\\b|\\bseed's\\b");
        help.forEach((name, text) -> assertFalse(label.matcher(text).find(), () -> name + ": " + text));
        // each workload's source by its title and link, as README.md's "Where Ringwire comes from" gives them
        String netty = "https://netty.io/news/2020/11/16/io_uring-0-0-1-Final.html";
        String rsocket = "https://jauntsdn.com/post/rpc-iouring/";
        assertCites(help, "echo", "Netty/Incubator/Transport/Native/io_uring 0.0.1.Final released", netty);
        for (String command : List.of("rpc-backend", "rpc-frontend", "single-stream", "conns")) {
            assertCites(help, command, "IO_URING for Netty based RPC: quick analysis", rsocket);
        }
        assertCites(help, "redis", "如何评价Netty封装的io_uring?", ""); // the README gives it no link
        assertCites(help, "cost-model", "io_uring vs epoll，谁在网络编程领域更胜一筹？",
            "https://juejin.cn/post/7045098217121251335");
        assertCites(help, "lab", "Kill the myth please. NIO is not faster than IO",
            "http://mailinator.blogspot.com/2008/02/kill-myth-please-nio-is-not-faster-than.html");
    }

    /** Picocli wraps the help, so words are compared without the white space between them. */
    private static void assertCites(Map<String, String> help, String command, String title, String link) {
        String words = help.get(command).replaceAll("\\s+", "");
        assertTrue(words.contains(title.replaceAll("\\s+", "")) && words.contains(link),
            () -> command + " cites " + title + " " + link + ": " + help.get(command));
    }

    @Test
    void shouldRunTheThreeLettuceClientsInRedisClientAndCiteTheReportBehindIt() {
        CommandLine cl = new CommandLine(new Lab());
        RedisClientCommand cmd = (RedisClientCommand) cl.parseArgs("redis-client", "--depth", "4")
            .subcommand().commandSpec().userObject();
        assertEquals(List.of(4), cmd.depths);
        assertEquals(List.of("set", "get"), cmd.commands, "default");
        assertEquals(List.of(16, 1024), cmd.sizes, "default");
        assertEquals(Competitor.lettuceClients(), cmd.common.settings(Competitor.lettuceClients()).servers());
        String help = cl.getSubcommands().get("redis-client").getUsageMessage();
        assertTrue(help.contains("lettuce#3523") && help.contains("https://github.com/redis/lettuce/issues/3523"),
            help);
    }
}
