package io.ringwire.lab.report;

import io.ringwire.lab.cost.ConnectionCost;
import io.ringwire.lab.cost.CostModel;
import io.ringwire.lab.load.LoadGenerator;
import io.ringwire.lab.server.ServerJvm;
import io.ringwire.lab.results.RunResult;
import io.ringwire.lab.results.Stats;
import com.fasterxml.jackson.databind.JsonNode;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The report: results.json parses back, report.html is self-contained and holds every table and chart. */
class ReportTest {
    private static LabReport sample() {
        List<RunResult> runs = new ArrayList<>();
        for (String w : List.of("echo", "single-stream")) {
            for (int round = 1; round <= 2; round++) {
                for (String s : List.of("ringwire", "netty-epoll", "blocking-virtual")) {
                    runs.add(SummaryTest.run(w, s, round, 1000 * round, 5 + round, 30, 0));
                }
            }
        }
        CostModel.Costs costs = new CostModel.Costs(230, 1500, 1900,
            new double[] {2100, 1200, 800, 600, 500, 450, 420}, 128);
        CostModel.Report model = LabReport.costModel(costs, Summary.of(runs).get(0));
        return LabReport.of("./ringwire lab <test>", ServerJvm.DEFAULT, LoadGenerator.Engine.IO_URING,
            List.of("redis: skipped: <because>"), runs, model);
    }

    @Test
    void shouldWriteJsonThatParsesBackWithNullsForMissingFigures(@TempDir Path dir) throws Exception {
        LabReport report = sample();
        report.write(dir);
        JsonNode json = LabReport.mapper().readTree(Files.readString(dir.resolve("results.json")));
        assertEquals(12, json.get("runs").size());
        assertEquals(2, json.get("summaries").size());
        JsonNode first = json.get("runs").get(0);
        assertEquals("ringwire", first.get("server").asText());
        assertTrue(json.get("machine").get("server JVM flags").asText().contains("Netty uses sun.misc.Unsafe"),
            "the report says how the servers ran: " + json.get("machine"));
        assertTrue(first.get("offeredRate").isNull(), "NaN is written as null: " + first);
        assertEquals(6.0, first.get("serverCpuUsPerMsg").asDouble());
        assertTrue(json.get("verdicts").get(0).asText().startsWith("echo (v): ringwire"));
        assertEquals(230.0, json.get("costModel").get("costs").get("s").asDouble());
        assertEquals(8.0, json.get("costModel").get("observedN").asDouble());
    }

    @Test
    void theLoadGeneratorLineNamesTheGeneratorOfEachWorkload() {
        List<RunResult> runs = List.of(SummaryTest.run("echo", "ringwire", 1, 1000, 5, 30, 0),
            SummaryTest.run("files", "ringwire", 1, 1000, 5, 30, 0),
            SummaryTest.run("udp-echo", "ringwire", 1, 1000, 5, 30, 0));
        String generator = LabReport.of("./ringwire lab <test>", ServerJvm.DEFAULT, LoadGenerator.Engine.IO_URING,
            List.of(), runs, null).machine().get("load generator");
        assertTrue(generator.startsWith("io_uring: one io_uring"), generator);
        assertTrue(generator.contains("NIO selector reading whole files, one thread, for files"), generator);
        assertTrue(generator.contains("NIO selector, one thread, for udp-echo"), generator);

        String filesOnly = LabReport.of("./ringwire lab files", ServerJvm.DEFAULT, LoadGenerator.Engine.IO_URING,
            List.of(), runs.subList(1, 2), null).machine().get("load generator");
        assertFalse(filesOnly.contains("io_uring"), "files is not loaded by the io_uring generator: " + filesOnly);
    }

    @Test
    void theConnsWorkloadsMemoryPerConnectionIsInEveryForm(@TempDir Path dir) throws Exception {
        List<RunResult> runs = List.of(SummaryTest.run("conns", "ringwire", 1, 1000, 40, 30, 0),
            SummaryTest.run("conns", "netty-epoll", 1, 1000, 35, 30, 0));
        List<ConnectionCost> costs = List.of(
            new ConnectionCost("v", "ringwire", 1, 10_000, 8000, 990, 5, 1, 1400, 5200, 320, 620, 50,
                List.of(new ConnectionCost.ClassCost("io.ringwire.transport.RingwireSocketChannel", 1, 168))),
            new ConnectionCost("v", "netty-epoll", 1, 10_000, 8500, 1250, 6, 1, 2900, 5400, 370, 630, 250,
                List.of()));
        LabReport report = LabReport.of("./ringwire lab conns", ServerJvm.DEFAULT, LoadGenerator.Engine.IO_URING,
            List.of(), runs, null, costs);
        report.write(dir);
        JsonNode json = LabReport.mapper().readTree(Files.readString(dir.resolve("results.json")));
        assertEquals(990.0, json.get("connectionCosts").get(0).get("heapPerConn").asDouble());
        assertTrue(report.text().contains("memory per connection"), report.text());
        assertTrue(report.text().contains("RingwireSocketChannel 1.0 × = 168 B"), report.text());
        Document doc = Jsoup.parse(dir.resolve("report.html").toFile(), "UTF-8");
        org.jsoup.select.Elements memory = doc.select("section[data-workload=conns-memory] tr[data-server]");
        assertEquals(List.of("ringwire", "netty-epoll"), memory.eachAttr("data-server"));
        assertTrue(memory.get(0).text().contains("996"), () -> "heap + native + GC: " + memory.get(0).text());
    }

    @Test
    void shouldRenderASelfContainedHtmlReport(@TempDir Path dir) throws Exception {
        LabReport report = sample();
        report.write(dir);
        Document doc = Jsoup.parse(dir.resolve("report.html").toFile(), "UTF-8");
        assertEquals("Ringwire lab report", doc.title());
        // nothing to fetch: no scripts, no external stylesheets or images
        assertTrue(doc.select("script, link, img, iframe").isEmpty());
        assertTrue(doc.select("[src], [href]").isEmpty());

        List<Element> sections = doc.select("section.workload");
        assertEquals(List.of("echo", "single-stream", "cost-model"),
            sections.stream().map(e -> e.attr("data-workload")).toList());
        Element echo = sections.get(0);
        assertEquals(List.of("ringwire", "netty-epoll", "blocking-virtual"),
            echo.select("table.results tr[data-server]").stream().map(e -> e.attr("data-server")).toList());
        assertTrue(echo.selectFirst("p.verdict").text().contains("ringwire spends the least server CPU"));
        // throughput, CPU per message, latency percentiles, memory, and the published figure beside them, with its
        // source's title and link as text (the page links to nothing)
        assertEquals(5, echo.select("svg.chart").size());
        Element published = echo.selectFirst("div.published");
        assertEquals("Netty's announcement", published.attr("data-source"));
        assertTrue(published.text().contains("267,371"), published.text());
        assertTrue(published.text().contains("\"Netty/Incubator/Transport/Native/io_uring 0.0.1.Final released\", "
            + "https://netty.io/news/2020/11/16/io_uring-0-0-1-Final.html"), published.text());
        java.util.regex.Pattern label = java.util.regex.Pattern.compile("(?i)\\bseeds?\\b|\\bseed's\\b");
        String terminal = report.text(LabReport.Detail.WIDE) + report.summaryText(null);
        for (String text : List.of(doc.text(), terminal)) {
            assertFalse(label.matcher(text).find(),
                () -> "the published texts by name and link, never by the project's own label: " + text);
        }
        // a bar per server in the throughput chart, carrying its value
        Element throughput = echo.select("svg.chart").get(0);
        assertEquals(List.of("1500.0000", "1500.0000", "1500.0000"),
            throughput.select("rect.bar").stream().map(e -> e.attr("data-value")).toList());
        // min-max whiskers on throughput and CPU per message, one per server
        assertEquals(3, throughput.select("path.whisker").size());
        assertEquals(3, echo.select("svg.chart").get(1).select("path.whisker").size());
        // whole counts print as such
        assertEquals("2", echo.selectFirst("table.results tr[data-server] td:eq(1)").text());
        // the first chart sums up every workload: ringwire over each competitor, with intervals
        Element overview = doc.selectFirst("section.overview");
        assertTrue(overview.text().contains("ringwire / competitor"), overview.text());
        assertEquals(4, overview.select("rect.bar").size(), "2 workloads × 2 competitors");
        assertEquals(4, overview.select("path.whisker").size());
        assertEquals(1, doc.select("p.note").size());
        Element model = sections.get(2);
        assertTrue(model.text().contains("s = 230 ns"), model.text());
        assertFalse(model.select("svg.chart rect.bar").isEmpty());
    }

    @Test
    void theReportOpensWithTheTerminalsSummaryAsATableAboveItsChart(@TempDir Path dir) throws Exception {
        LabReport report = sample();
        report.write(dir);
        Document doc = Jsoup.parse(dir.resolve("report.html").toFile(), "UTF-8");
        Element overview = doc.selectFirst("section.overview");
        Element table = overview.selectFirst("table.summary");
        assertTrue(table.elementSiblingIndex() < overview.selectFirst("svg.chart").parent().elementSiblingIndex(),
            "the table comes first");
        assertTrue(doc.selectFirst("section.overview").elementSiblingIndex()
            < doc.selectFirst("section.workload").elementSiblingIndex(), "the summary opens the report");
        org.jsoup.select.Elements rows = table.select("tr[data-workload]");
        assertEquals(List.of("echo", "single-stream"), rows.eachAttr("data-workload"));
        assertEquals(List.of("ringwire", "ringwire"), rows.eachAttr("data-server"));
        // the same words as the terminal's: ringwire's runs and netty-epoll's are the same, netty-io_uring did not run
        Overview.Cell cell = report.overview().entries().get(0).lines().get(0).cells().get(0);
        assertEquals(Stats.Difference.NONE, cell.cpu().difference());
        Element echo = rows.get(0);
        assertEquals(Overview.cell(cell.cpu(), false).replaceAll(" +", " "), echo.child(2).text());
        assertTrue(echo.child(2).text().endsWith("no measurable difference"), echo.text());
        assertEquals("not run", echo.child(3).text());
        assertTrue(report.summaryText(null).contains(Overview.cell(cell.cpu(), false)), report.summaryText(null));
        assertTrue(echo.child(6).text().contains("Netty's announcement "
            + "(https://netty.io/news/2020/11/16/io_uring-0-0-1-Final.html): netty io_uring 0.0.1 3.31× "
            + "netty-epoll/NIO's req/s; here, rate: ringwire 1.00× netty-epoll's"), echo.text());
        assertTrue(overview.text().contains(Overview.HOW_TO_READ), overview.text());
    }

    @Test
    void aVariantsOwnSettingIsNamedAndTheOverviewDoesNotTakeItForACompetitor(@TempDir Path dir) throws Exception {
        List<RunResult> runs = new ArrayList<>();
        for (int round = 1; round <= 2; round++) {
            for (String s : List.of("ringwire", "ringwire-minwait", "netty-epoll")) {
                runs.add(SummaryTest.openLoop(s, round, 90));
            }
        }
        LabReport report = LabReport.of("./ringwire lab echo --rate 20000", ServerJvm.DEFAULT,
            LoadGenerator.Engine.IO_URING, List.of(), runs, null);
        assertTrue(report.text().contains("ringwire-minwait: ringwire with -Dringwire.minWaitMicros=200\n"),
            report.text());
        report.write(dir);
        JsonNode json = LabReport.mapper().readTree(Files.readString(dir.resolve("results.json")));
        assertEquals("ringwire with -Dringwire.minWaitMicros=200", json.get("machine").get("ringwire-minwait").asText());
        Document doc = Jsoup.parse(dir.resolve("report.html").toFile(), "UTF-8");
        assertEquals(List.of("ringwire", "ringwire-minwait", "netty-epoll"),
            doc.select("table.results tr[data-server]").stream().map(e -> e.attr("data-server")).toList());
        assertEquals(1, doc.selectFirst("section.overview").select("rect.bar").size(),
            "1 workload × 1 competitor (netty-epoll): Ringwire's own variant is not one");
        assertFalse(LabReport.of("./ringwire lab echo", ServerJvm.DEFAULT, LoadGenerator.Engine.IO_URING, List.of(),
            runs.stream().filter(r -> !r.server().equals("ringwire-minwait")).toList(), null).text()
            .contains("ringwire-minwait"), "named only where it ran");
    }

    @Test
    void theSoftwareCountersAreInTheJsonAndInTheHtmlTableAsPerfStatWouldCountThem(@TempDir Path dir)
        throws Exception {
        List<RunResult> runs = List.of(
            SummaryTest.withCounters(SummaryTest.run("echo", "ringwire", 1, 1000, 5, 30, 0), 250, 2, 0.25, 0, 0),
            SummaryTest.run("echo", "netty-epoll", 1, 1000, 6, 30, 0));
        LabReport.of("./ringwire lab", ServerJvm.DEFAULT, LoadGenerator.Engine.IO_URING, List.of(), runs, null)
            .write(dir);
        JsonNode json = LabReport.mapper().readTree(Files.readString(dir.resolve("results.json")));
        JsonNode rw = json.get("runs").get(0);
        assertEquals(250.0, rw.get("voluntaryCtxSwitchesPerKMsg").asDouble());
        assertEquals(2.0, rw.get("involuntaryCtxSwitchesPerKMsg").asDouble());
        assertEquals(0.25, rw.get("minorFaultsPerKMsg").asDouble());
        assertEquals(0.0, rw.get("majorFaultsPerKMsg").asDouble());
        assertEquals(0.0, rw.get("cpuMigrationsPerKMsg").asDouble());
        assertTrue(json.get("runs").get(1).get("cpuMigrationsPerKMsg").isNull(), "not read: null, not 0");
        Document doc = Jsoup.parse(dir.resolve("report.html").toFile(), "UTF-8");
        Element table = doc.selectFirst("section.workload table.results");
        List<String> head = table.select("th").stream().map(Element::text).toList();
        int voluntary = head.indexOf("voluntary ctx switches /1k msgs");
        assertTrue(voluntary > 0, head::toString);
        assertEquals(List.of("involuntary ctx switches /1k msgs", "minor faults /1k msgs", "major faults /1k msgs",
            "CPU migrations /1k msgs"), head.subList(voluntary + 1, voluntary + 5));
        List<String> cells = table.selectFirst("tr[data-server=ringwire]").select("td").stream().map(Element::text)
            .toList();
        assertEquals(List.of("250", "2.00", "0.25", "0.00", "0.00"), cells.subList(voluntary, voluntary + 5));
        assertEquals("-", table.selectFirst("tr[data-server=netty-epoll]").select("td").get(voluntary).text());
        assertTrue(doc.text().contains("perf stat's context-switches (voluntary + involuntary), page-faults (minor + "
            + "major) and cpu-migrations"), "the report says what they are");
    }

    @Test
    void shouldEscapeWhatItPrints() {
        assertEquals("&lt;a href=&quot;x&quot;&gt; &amp; &#39;", Html.escape("<a href=\"x\"> & '"));
    }

    @Test
    void aFigureNoGeneratorReportsIsNotAvailableNotANumber() {
        // wrk reports no 99.9th percentile: its bar is drawn as n/a, in its label and its tooltip alike
        String svg = Charts.bars("p99.9", "µs", List.of("ringwire", "netty-epoll"), new double[] {1200, Double.NaN},
            null);
        assertTrue(svg.contains("<title>netty-epoll µs: n/a</title>"), svg);
        assertFalse(svg.contains("NaN</title>"), svg);
    }
}
