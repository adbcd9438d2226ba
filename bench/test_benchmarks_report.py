"""Tests of bench/benchmarks-report.py and bench/labresults.py:  python3 -m unittest discover -s bench"""
import contextlib
import importlib.util
import io
import json
import os
import re
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

spec = importlib.util.spec_from_file_location("benchmarks_report", os.path.join(HERE, "benchmarks-report.py"))
report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(report)
import labresults  # noqa: E402  (benchmarks-report.py put bench/ on the path)


def row(server, cpu_runs, rate, offered=None, **more):
    cpu = labresults.median(cpu_runs)
    r = {"server": server, "runs": len(cpu_runs), "rate": rate, "rateMin": rate * 0.95, "rateMax": rate * 1.05,
         "rateVsEpoll": None, "offeredRate": offered, "p50Us": 120.0, "p99Us": 900.0, "p999Us": 2000.0,
         "sendLagP99Us": 300.0 if offered else None, "cpuUsPerMsg": cpu, "cpuMin": min(cpu_runs),
         "cpuMax": max(cpu_runs), "cpuRuns": cpu_runs, "serverUtil": 0.5, "jitUtil": 0.0, "loadgenUtil": 0.5,
         "rssOutsideHeapMiB": 85.0, "liveHeapMiB": 6.0, "heapPeakMiB": 40.0, "directPeakMiB": 1.0,
         "sqesPerEnter": 12.0 if server == "ringwire" else None, "iovecsPerWrite": None, "bytesPerRecv": None,
         "mismatches": 0, "errors": 0, "starved": 0, "limit": "fixed load" if offered else "server"}
    r.update(more)
    return r


def summary(workload, variant, rows):
    base = next(r for r in rows if r["server"] == "netty-epoll")
    for r in rows:
        r["rateVsEpoll"] = r["rate"] / base["rate"]
        r["cpuVsEpoll"] = r["cpuUsPerMsg"] / base["cpuUsPerMsg"]
        r["cpuVsEpollLow"], r["cpuVsEpollHigh"] = labresults.ratio_interval(r["cpuRuns"], base["cpuRuns"])
    return {"workload": workload, "variant": variant, "rows": rows, "contaminatedRuns": 0,
            "totalRuns": sum(r["runs"] for r in rows)}


def results(summaries, command="./ringwire lab", commit=None):
    machine = {"date": "2026-11-26T10:00:00Z", "kernel": "6.18.44", "cpu": "Intel Xeon", "cpus online": "2",
               "pinning": "servers on CPU 1, load generator on CPU 0 (taskset)", "jdk": "OpenJDK 25",
               "netty": "4.2.18.Final", "server JVM flags": "--sun-misc-unsafe-memory-access=allow"}
    if commit:
        machine["commit"] = commit
    return {"command": command, "machine": machine, "notes": [], "summaries": summaries, "verdicts": [],
            "runs": [], "costModel": None, "connectionCosts": []}


DOC = """# Benchmarks

<!-- figures:summary begin -->
nothing yet
<!-- figures:summary end -->

## Echo at a fixed rate

<!-- figures:echo-rate begin -->
interim figures
<!-- figures:echo-rate end -->

## rpc-backend

<!-- figures:rpc-backend begin -->
interim figures
<!-- figures:rpc-backend end -->

## redis

<!-- figures:redis begin -->
the figures of another run
<!-- figures:redis end -->

<!-- figures:conns begin -->
<!-- figures:conns end -->

<!-- figures:cost-model begin -->
<!-- figures:cost-model end -->
"""


class BootstrapTest(unittest.TestCase):
    """The ratio intervals are the lab's own (Stats.ratioInterval), computed here for pairs the lab does not write."""

    def test_the_interval_is_the_lab_s_bit_for_bit(self):
        # each pair's interval as the JDK's SplittableRandom gives it (java.util.SplittableRandom(0x5eed), 4000
        # resamples); three runs against five takes the bounded draw's rejection path
        cases = [([3.82, 5.28, 4.1], [5.05, 4.44, 4.7, 4.9, 5.3], (0.7564356435643564, 1.123404255319149)),
                 ([0.213, 0.222], [0.203, 0.207], (1.028985507246377, 1.0935960591133005)),
                 ([18.56, 19.55, 18.1], [18.88, 20.20, 19.0], (0.8960396039603962, 1.0354872881355932)),
                 ([1, 2, 3, 4, 5, 6, 7], [2, 3], (0.6666666666666666, 3.0))]
        for a, b, expected in cases:
            self.assertEqual(expected, labresults.ratio_interval(a, b))

    def test_a_difference_is_measurable_only_when_the_runs_do_not_overlap(self):
        self.assertEqual(-1, labresults.measurable([1.0, 1.1], [1.2, 1.3]))
        self.assertEqual(1, labresults.measurable([1.4, 1.5], [1.2, 1.3]))
        self.assertEqual(0, labresults.measurable([1.0, 1.25], [1.2, 1.3]))
        self.assertEqual(0, labresults.measurable([1.0], [1.2, 1.3]))


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.doc = os.path.join(self.dir.name, "benchmarks.md")
        with open(self.doc, "w", encoding="utf-8") as f:
            f.write(DOC)

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, data):
        path = os.path.join(self.dir.name, name)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(data, f)
        return path

    def suite(self):
        fixed = summary("echo", "500 conns × 128 B at 20k msgs/s", [
            row("ringwire", [18.56, 19.55], 20000, offered=20000),
            row("netty-io_uring", [20.16, 20.60], 20000, offered=20000),
            row("netty-epoll", [18.88, 20.20], 20000, offered=20000)])
        rpc = summary("rpc-backend", "32 conns × 1000 streams × 32 msgs × 128 B", [
            row("ringwire", [0.213, 0.222, 0.218], 4.5e6),
            row("netty-io_uring", [0.304, 0.324, 0.31], 3.0e6),
            row("netty-epoll", [0.203, 0.207, 0.205], 4.7e6)])
        return self.write("results.json", results([fixed, rpc], commit="edcf221"))

    @staticmethod
    def run_report(*args):
        """bench/benchmarks-report.py with these arguments, its output kept out of the test's"""
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            return report.main(list(args))

    def read(self):
        with open(self.doc, encoding="utf-8") as f:
            return f.read()

    def test_each_region_gets_its_table_its_run_and_its_chart(self):
        self.assertEqual(0, self.run_report("--doc", self.doc, self.suite()))
        text = self.read()
        region = re.search(r"<!-- figures:rpc-backend begin -->\n(.*?)<!-- figures:rpc-backend end -->", text, re.S)
        body = region.group(1)
        self.assertIn("Measured 2026-11-26 · build edcf221 · Intel Xeon, 2 CPUs, Linux 6.18.44", body)
        self.assertIn("Netty's Unsafe allowed", body)
        self.assertIn("| ringwire | 3 | 4.50 M", body)
        # Ringwire's runs all above Netty epoll's: measurably higher; all below Netty io_uring's: measurably lower
        self.assertIn("1.06 × Netty epoll's CPU per message (95 % interval", body)
        self.assertIn("measurably higher", body)
        self.assertIn("0.70 × Netty io_uring's CPU per message", body)
        self.assertIn("measurably lower", body)
        self.assertIn("![rpc-backend · 32 conns × 1000 streams × 32 msgs × 128 B", body)
        self.assertIn("(benchmarks/rpc-backend.svg)", body)
        self.assertIn("answers/s", text)  # the fixed-rate echo's table
        self.assertIn("[echo · 500 conns × 128 B at 20k msgs/s](#echo-at-a-fixed-rate)", text)
        self.assertIn("the figures of another run", text)  # a region no file holds stays as it was
        for name in ("rpc-backend.svg", "echo-rate.svg"):
            ElementTree.parse(os.path.join(self.dir.name, "benchmarks", name))  # well-formed

    def test_the_same_results_give_the_same_page(self):
        path = self.suite()
        self.run_report("--doc", self.doc, path)
        first = self.read()
        with open(os.path.join(self.dir.name, "benchmarks", "rpc-backend.svg"), encoding="utf-8") as f:
            chart = f.read()
        self.assertEqual(0, self.run_report("--doc", self.doc, "--check", path))
        self.run_report("--doc", self.doc, path)
        self.assertEqual(first, self.read())
        with open(os.path.join(self.dir.name, "benchmarks", "rpc-backend.svg"), encoding="utf-8") as f:
            self.assertEqual(chart, f.read())

    def test_check_changes_nothing_and_says_what_would_change(self):
        self.assertEqual(1, self.run_report("--doc", self.doc, "--check", self.suite()))
        self.assertEqual(DOC, self.read())
        self.assertFalse(os.path.exists(os.path.join(self.dir.name, "benchmarks")))

    def test_the_file_that_measured_a_region_most_wins(self):
        full = self.suite()
        two = summary("rpc-backend", "32 conns × 1000 streams × 32 msgs × 128 B", [
            row("ringwire", [0.3], 1e6), row("netty-epoll", [0.2], 1e6)])
        small = self.write("small.json", results([two], command="./ringwire lab rpc-backend --rounds 1"))
        self.run_report("--doc", self.doc, full, small)
        self.assertIn("| ringwire | 3 | 4.50 M", self.read())
        self.assertNotIn("--rounds 1", self.read())

    def test_the_commit_comes_from_the_command_line_where_the_lab_did_not_record_it(self):
        fixed = summary("echo", "500 conns × 128 B at 20k msgs/s", [
            row("ringwire", [18.56, 19.55], 20000, offered=20000),
            row("netty-epoll", [18.88, 20.20], 20000, offered=20000)])
        path = self.write("r.json", results([fixed]))
        self.run_report("--doc", self.doc, path)
        self.assertIn("build not recorded", self.read())
        self.run_report("--doc", self.doc, "--commit", "0123abc", path)
        self.assertIn("build 0123abc", self.read())


    def test_memory_per_connection_and_the_cost_model_have_their_tables(self):
        variant = "10,000 conns × 64 B every 10 s"
        fixed = summary("conns", variant, [row("ringwire", [39.2, 40.1], 1000, offered=1000),
                                           row("netty-epoll", [38.3, 38.9], 1000, offered=1000)])
        data = results([fixed])
        cost = {"heapPerConn": 1023, "nativePerConn": 4, "gcPerConn": 1, "rssPerConn": 1488, "connectsPerSec": 19735,
                "transportPerConn": 368, "nettyPerConn": 608, "otherPerConn": 45}
        data["connectionCosts"] = [dict(cost, variant=variant, server="ringwire", round=r) for r in (1, 2)] + [
            dict(cost, variant=variant, server="netty-epoll", round=1, heapPerConn=1294)]
        data["costModel"] = {"costs": {"s": 416.0, "w": 4159.0, "t": 4596.0, "perOpAtN": [4967.0, 3071.0],
                                       "caveats": []},
                             "batches": [1, 64], "echoVariant": "500 conns × 128 B × 1 in flight", "observedN": 2.12,
                             "measuredRatio": 0.92, "seedPredictedRatio": 0.52, "perOpPredictedRatio": 1.05}
        self.assertEqual(0, self.run_report("--doc", self.doc, self.write("conns.json", data)))
        text = self.read()
        self.assertIn("| ringwire | 2 | 19,735 | 1,023 | 4 | 1 | 1,028 | 1,488 | 368 | 608 | 45 |", text)
        self.assertIn("| netty-epoll | 1 | 19,735 | 1,294 |", text)
        self.assertIn("Cost model: s = 416 ns, w = 4,159 ns, t = 4,596 ns (epoll s + w = 4,575 ns)", text)
        self.assertIn("| 64 | 78 | 4602 | 3,071 | 0.67 |", text)
        for name in ("conns-10-000-conns-64-b-every-10-s.svg", "cost-model.svg"):
            ElementTree.parse(os.path.join(self.dir.name, "benchmarks", name))


class OwnedDocsTest(unittest.TestCase):
    """The pages this generator writes speak of the project, not of how it was made."""

    def test_no_sitting_or_issue_number(self):
        for name in ("benchmarks.md", "architecture.md"):
            with open(os.path.join(REPO, "docs", name), encoding="utf-8") as f:
                text = f.read()
            found = re.findall(r"\b(?:session|issue)s? [0-9]{1,2}\b", text, re.I)
            self.assertEqual([], found, name)


if __name__ == "__main__":
    unittest.main()
