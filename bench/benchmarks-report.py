#!/usr/bin/env python3
"""Writes the lab's figures into docs/benchmarks.md: one region per workload, and a chart for each.

    bench/benchmarks-report.py [--doc docs/benchmarks.md] [--charts docs/benchmarks] [--commit HASH] [--check]
                               [--readme README.md] RESULTS.json [RESULTS.json ...]

Each RESULTS.json is what one lab command wrote (lab-results/results.json). Every summary in them that belongs to a
region of the page, marked in the Markdown as

    <!-- figures:echo-rate begin -->
    ...
    <!-- figures:echo-rate end -->

replaces that region's contents: a table (per server: rate, p50 and p99, server CPU per message, their ratios to
Netty epoll with the lab's 95 % interval, memory), what Ringwire's ratios to both Netty native transports say, a
line naming the date, build and host of the run, and a chart (docs/benchmarks/<region>.svg, plain SVG). Where several
files hold the same region, the one with the most runs of it wins (the last named of equals); regions no file holds
are left as they are, and said so. The region "summary" gets one line per workload the files hold.

The build's commit is the lab's "commit" entry where it records one; else --commit names it (one value for all files).
--check changes nothing and exits 1 if the page or a chart would change. The same files always give the same output.
--readme also writes the default suite's workloads (Ringwire over Netty epoll and Netty io_uring) into that file's
"headline" region, with a chart (docs/benchmarks/headline.svg).
"""
import argparse
import html
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from labresults import (connection_cost_medians, connection_cost_table, cost_model_lines, fmt, load,  # noqa: E402
                        measurable, open_loop, ratio_interval)

BASELINE = "netty-epoll"
RINGWIRE = "ringwire"
NETTY_IO_URING = "netty-io_uring"

# the order servers are listed in, whatever order they ran in
SERVER_ORDER = ["ringwire", "ringwire-minwait", "netty-io_uring", "netty-epoll", "netty-nio", "blocking-platform",
                "blocking-virtual", "vertx-ringwire", "vertx-io_uring", "vertx-epoll"]

MARKER = re.compile(r"<!-- figures:([a-z0-9-]+) begin -->\n(.*?)<!-- figures:\1 end -->", re.S)


def _is(workload, fixed_rate=None, variant=None, exclude=None):
    """A region's selector: the workload, whether its load was offered at a fixed rate, its variant."""
    def select(summary):
        if summary["workload"] != workload:
            return False
        if fixed_rate is not None and open_loop(summary) != fixed_rate:
            return False
        if variant is not None and summary["variant"] != variant:
            return False
        return exclude is None or exclude not in summary["variant"]
    return select


# region key, the section title the summary links to, what counts as a message, which summaries belong to it
REGIONS = [
    ("echo-rate", "Echo at a fixed rate", "msg", _is("echo", fixed_rate=True)),
    ("echo", "Echo at saturation", "msg", _is("echo", fixed_rate=False, variant="500 conns × 128 B × 1 in flight")),
    ("rpc-backend", "rpc-backend", "msg", _is("rpc-backend", exclude="autoRead off")),
    ("rpc-frontend", "rpc-frontend", "msg", _is("rpc-frontend")),
    ("single-stream", "single-stream", "msg", _is("single-stream")),
    ("conns", "conns", "msg", _is("conns")),
    ("domain-echo", "domain-echo", "msg", _is("domain-echo")),
    ("udp-echo", "udp-echo", "datagram", _is("udp-echo")),
    ("files", "files", "file", _is("files", exclude="FileChannel")),
    ("quic", "quic", "msg", _is("quic")),
    ("tls-echo", "tls-echo", "msg", _is("tls-echo")),
    ("redis", "redis", "request", _is("redis")),
    ("http", "http", "request", _is("http", fixed_rate=False)),
    ("http-rate", "http", "request", _is("http", fixed_rate=True)),
]
COST_MODEL = ("cost-model", "cost-model")
SUMMARY = "summary"
# the default suite's workloads (./ringwire lab), which the README's headline shows
HEADLINE = ["echo-rate", "echo", "rpc-backend", "single-stream"]


# ------------------------------------------------------------------------------------------------ figures as text

def rate_text(v):
    if v is None:
        return "-"
    if v >= 1e6:
        return f"{v / 1e6:.2f} M"
    if v >= 1e4:
        return f"{v / 1e3:.0f}k"
    return f"{v:,.0f}"


def rate_range(lo, hi):
    if lo is None or hi is None:
        return ""
    if lo >= 1e6 and hi >= 1e6:
        return f"{lo / 1e6:.2f}-{hi / 1e6:.2f} M"
    return f"{rate_text(lo)}-{rate_text(hi)}"


def cpu_text(v):
    if v is None:
        return "-"
    if v >= 100:
        return f"{v:.1f}"
    return f"{v:.2f}" if v >= 1 else f"{v:.3f}"


def ratio_text(ratio, low, high, judged):
    """'0.93 (0.90-0.97), lower': a ratio of medians, its interval, and whether the runs of the two overlap."""
    if ratio is None:
        return "-"
    text = f"{ratio:.2f}"
    if low is not None and high is not None and f"{low:.2f}" != f"{high:.2f}":
        text += f" ({low:.2f}-{high:.2f})"
    if judged:
        text += f", {judged}"
    return text


def compare(a, b):
    """Server a's CPU per message against b's: (ratio, low, high, 'lower' | 'higher' | '' | None for one run)."""
    ra, rb = a.get("cpuRuns") or [], b.get("cpuRuns") or []
    if not ra or not rb or not a.get("cpuUsPerMsg") or not b.get("cpuUsPerMsg"):
        return None, None, None, None
    low, high = ratio_interval(ra, rb)
    m = measurable(ra, rb)
    judged = None if len(ra) < 2 or len(rb) < 2 else "lower" if m < 0 else "higher" if m > 0 else ""
    return a["cpuUsPerMsg"] / b["cpuUsPerMsg"], low, high, judged


def judgement(judged):
    return {"lower": "measurably lower", "higher": "measurably higher", "": "runs overlap: no measurable difference",
            None: "one run on a side: cannot tell"}[judged]


def ordered(rows):
    return sorted(rows, key=lambda r: (SERVER_ORDER.index(r["server"]) if r["server"] in SERVER_ORDER
                                       else len(SERVER_ORDER), r["server"]))


def slug(text):
    """The anchor GitHub gives a heading."""
    return re.sub(r"[^a-z0-9 -]", "", text.lower()).replace(" ", "-")


def file_slug(text):
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


# ------------------------------------------------------------------------------------------------ provenance

def provenance(results, commit):
    m = results.get("machine") or {}
    date = (m.get("date") or "?")[:10]
    build = m.get("commit") or commit or "not recorded"
    host = ", ".join(x for x in [m.get("cpu"), f"{m['cpus online']} CPUs" if m.get("cpus online") else None,
                                 f"Linux {m['kernel']}" if m.get("kernel") else None, m.get("jdk"),
                                 f"Netty {m['netty']}" if m.get("netty") else None] if x)
    flags = m.get("server JVM flags") or ""
    unsafe = ("Netty's Unsafe allowed" if "unsafe-memory-access=allow" in flags
              else "Netty without Unsafe" if "noUnsafe" in flags else None)
    parts = [f"Measured {date}", f"build {build}", host]
    if m.get("pinning"):
        parts.append(m["pinning"])
    if unsafe:
        parts.append(unsafe)
    return " · ".join(parts) + f" · `{results.get('command', '?')}`"


# ------------------------------------------------------------------------------------------------ one summary

def summary_table(summary, unit):
    fixed = open_loop(summary)
    rows = ordered(summary["rows"])
    rates = {"file": "files/s", "request": "requests/s", "datagram": "datagrams/s"}.get(unit, "msgs/s")
    if fixed:
        rates = "answers/s" if unit == "msg" else rates
    memory = summary["workload"] == "single-stream"
    head = (f"| server | runs | {rates} (min-max) | × epoll | p50 µs | p99 µs | CPU µs/{unit} (min-max) "
            f"| CPU × epoll (95 % interval) | limit | RSS outside heap MiB |")
    align = "|---|---:|---:|---:|---:|---:|---:|---|---|---:|"
    if memory:
        head += " heap kept MiB | heap peak MiB | direct peak MiB |"
        align += "---:|---:|---:|"
    lines = [head, align]
    for r in rows:
        judged = None
        if r["server"] != BASELINE and r.get("cpuRuns"):
            base = next((x for x in rows if x["server"] == BASELINE), None)
            if base is not None:
                judged = compare(r, base)[3]
        cpu_range = ("" if r.get("cpuMin") is None or r["runs"] < 2
                     else f" ({cpu_text(r['cpuMin'])}-{cpu_text(r['cpuMax'])})")
        vs = ratio_text(r.get("cpuVsEpoll"), r.get("cpuVsEpollLow"), r.get("cpuVsEpollHigh"),
                        judged if r["server"] != BASELINE else None)
        spread = f" ({rate_range(r.get('rateMin'), r.get('rateMax'))})" if r["runs"] > 1 else ""
        line = (f"| {r['server']} | {r['runs']} | {rate_text(r.get('rate'))}{spread} "
                f"| {fmt(r.get('rateVsEpoll'), 2)} | {fmt(r.get('p50Us'))} | {fmt(r.get('p99Us'))} "
                f"| {cpu_text(r.get('cpuUsPerMsg'))}{cpu_range} | {vs} | {r.get('limit') or '-'} "
                f"| {fmt(r.get('rssOutsideHeapMiB'))} |")
        if memory:
            line += (f" {fmt(r.get('liveHeapMiB'), 1)} | {fmt(r.get('heapPeakMiB'))} "
                     f"| {fmt(r.get('directPeakMiB'))} |")
        lines.append(line)
    return lines


def row(summary, server):
    return next((r for r in summary["rows"] if r["server"] == server), None)


def reading(summary, unit):
    """What the table says, sentence by sentence: Ringwire against both Netty native transports, the variants'
    trades, which side set the pace, and anything that went wrong."""
    unit = "message" if unit == "msg" else unit
    out = []
    rw, ep, nu = row(summary, RINGWIRE), row(summary, BASELINE), row(summary, NETTY_IO_URING)
    if rw is not None:
        parts = []
        for other, name in ((ep, "Netty epoll's"), (nu, "Netty io_uring's")):
            if other is None:
                continue
            ratio, low, high, judged = compare(rw, other)
            if ratio is not None:
                interval = "" if judged is None else f"95 % interval {low:.2f}-{high:.2f}: "
                parts.append(f"{ratio:.2f} × {name} CPU per {unit} ({interval}{judgement(judged)})")
        if parts:
            text = "Ringwire spends " + "; ".join(parts)
            if rw.get("rateVsEpoll") is not None and ep is not None and not open_loop(summary):
                text += f"; its rate is {rw['rateVsEpoll']:.2f} × Netty epoll's"
            out.append(text + ".")
        counters = []
        if rw.get("sqesPerEnter") is not None:
            counters.append(f"{rw['sqesPerEnter']:.1f} SQEs per enter")
        if rw.get("iovecsPerWrite") is not None:
            counters.append(f"{rw['iovecsPerWrite']:.2f} iovecs per write")
        if rw.get("bytesPerRecv") is not None:
            counters.append(f"{fmt(rw['bytesPerRecv'])} B per receive")
        if counters:
            out.append("Ringwire's loop: " + ", ".join(counters) + ".")
    mw = row(summary, "ringwire-minwait")
    if mw is not None and ep is not None:
        ratio, low, high, judged = compare(mw, ep)
        if ratio is not None:
            text = (f"ringwire-minwait (a 200 µs minimum wait) spends {ratio:.2f} × Netty epoll's CPU per {unit} "
                    f"(95 % interval {low:.2f}-{high:.2f}: {judgement(judged)})")
            if rw is not None and mw.get("p50Us") is not None and rw.get("p50Us") is not None:
                text += f", at a median latency of {fmt(mw['p50Us'])} µs against ringwire's {fmt(rw['p50Us'])}"
            out.append(text + ".")
    vr = row(summary, "vertx-ringwire")
    if vr is not None:
        parts = []
        for server in ("vertx-epoll", "vertx-io_uring"):
            other = row(summary, server)
            if other is not None:
                ratio, low, high, judged = compare(vr, other)
                if ratio is not None:
                    parts.append(f"{ratio:.2f} × {server}'s (95 % interval {low:.2f}-{high:.2f}: "
                                 f"{judgement(judged)})")
        if parts:
            out.append(f"Vert.x on Ringwire spends " + "; ".join(parts) + f" CPU per {unit}.")
    if open_loop(summary):
        lags = [r["sendLagP99Us"] for r in summary["rows"] if r.get("sendLagP99Us") is not None]
        if lags:
            out.append(f"The load generator kept its schedule within {fmt(max(lags))} µs (p99 lateness, worst "
                       "server), so every server was offered the same load." if max(lags) <= 1000 else
                       f"The load generator fell up to {fmt(max(lags))} µs behind its schedule (p99 lateness, worst "
                       "server): the load was not quite the same for every server.")
    else:
        both = [r["server"] for r in ordered(summary["rows"]) if r.get("limit") == "both"]
        generator = [r["server"] for r in ordered(summary["rows"]) if r.get("limit") == "generator"]
        if both:
            out.append("Both sides used a whole core against " + ", ".join(both) + ": there a server's CPU per "
                       f"{unit} is its core over the rate the pair reached, not its own cost alone.")
        if generator:
            out.append("The load generator was the limit against " + ", ".join(generator) + ": those rates are its "
                       "own as much as the server's.")
    for r in ordered(summary["rows"]):
        if r.get("cpuMin") and r.get("cpuMax") and len(r.get("cpuRuns") or []) >= 2 and r["cpuMax"] > 3 * r["cpuMin"]:
            out.append(f"{r['server']}'s runs differ {r['cpuMax'] / r['cpuMin']:.0f} × in CPU per {unit} "
                       f"({cpu_text(r['cpuMin'])}-{cpu_text(r['cpuMax'])}): it ran in two modes, and its median "
                       "says little.")
    if summary.get("contaminatedRuns"):
        out.append(f"{summary['contaminatedRuns']} of {summary['totalRuns']} runs had other processes using more than "
                   "0.2 cores during the window.")
    bad = sum(r.get("mismatches", 0) + r.get("errors", 0) for r in summary["rows"])
    starved = sum(r.get("starved", 0) for r in summary["rows"])
    checked = f"Every byte checked: {bad} mismatches or errors" if bad else "Every byte checked, none wrong"
    if starved:
        checked += f"; {starved} connections starved (answered only after the window)"
    out.append(checked + ".")
    return out


# ------------------------------------------------------------------------------------------------ charts

RINGWIRE_COLOUR = "#c0392b"
OTHER_COLOUR = "#7f8c9a"


def bar_chart(title, panels):
    """Plain SVG: one panel per figure side by side, a horizontal bar per server with its min-max range.

    @param panels [(heading, [(label, value, low, high)], value_text)]
    """
    label_width, panel_width, gap, row_height, top = 150, 270, 24, 20, 52
    rows = max(len(items) for _, items, _ in panels)
    width = max(label_width + len(panels) * (panel_width + gap), 16 + 8 * len(title))
    height = top + rows * row_height + 16
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
           f'<text x="8" y="18" font-size="13" font-weight="bold">{html.escape(title)}</text>']
    labels = [label for label, *_ in panels[0][1]]
    for i, label in enumerate(labels):
        y = top + i * row_height + 14
        colour = RINGWIRE_COLOUR if label.startswith("ringwire") else "#222222"
        out.append(f'<text x="{label_width - 8}" y="{y}" text-anchor="end" fill="{colour}">{html.escape(label)}</text>')
    for p, (heading, items, value_text) in enumerate(panels):
        x0 = label_width + p * (panel_width + gap)
        out.append(f'<text x="{x0}" y="{top - 10}" fill="#222222">{html.escape(heading)}</text>')
        scale_max = max([v for _, v, lo, hi in items for v in (v, hi) if v is not None] or [1]) or 1
        bar_room = panel_width - 70
        for i, (label, value, low, high) in enumerate(items):
            if value is None:
                continue
            y = top + i * row_height
            w = bar_room * value / scale_max
            colour = RINGWIRE_COLOUR if label.startswith("ringwire") else OTHER_COLOUR
            out.append(f'<rect x="{x0}" y="{y + 4}" width="{w:.1f}" height="{row_height - 8}" fill="{colour}"/>')
            if low is not None and high is not None and high > low:
                xl, xh, ym = x0 + bar_room * low / scale_max, x0 + bar_room * high / scale_max, y + row_height / 2
                out.append(f'<line x1="{xl:.1f}" y1="{ym:.1f}" x2="{xh:.1f}" y2="{ym:.1f}" stroke="#000000"/>')
                for xe in (xl, xh):
                    out.append(f'<line x1="{xe:.1f}" y1="{ym - 4:.1f}" x2="{xe:.1f}" y2="{ym + 4:.1f}" '
                               'stroke="#000000"/>')
            end = x0 + bar_room * max(value, high or value) / scale_max
            out.append(f'<text x="{end + 4:.1f}" y="{y + 14}" fill="#222222">{html.escape(value_text(value))}</text>')
        out.append(f'<line x1="{x0}" y1="{top}" x2="{x0}" y2="{top + rows * row_height}" stroke="#222222"/>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def summary_chart(summary, unit):
    rows = ordered(summary["rows"])
    cpu = [(r["server"], r.get("cpuUsPerMsg"), r.get("cpuMin"), r.get("cpuMax")) for r in rows]
    rate = [(r["server"], r.get("rate"), r.get("rateMin"), r.get("rateMax")) for r in rows]
    rates = {"file": "files/s", "request": "requests/s", "datagram": "datagrams/s"}.get(unit, "msgs/s")
    return bar_chart(f"{summary['workload']} · {summary['variant']}",
                     [(f"server CPU µs/{unit}, median and range", cpu, cpu_text),
                      (f"{rates}, median and range", rate, rate_text)])


def conns_chart(variant, memory_rows, summary):
    mem = [(server, m["heapPerConn"] + m["nativePerConn"] + m["gcPerConn"], None, None)
           for server, _, m in memory_rows]
    panels = [("bytes per idle connection", mem, lambda v: f"{v:,.0f}")]
    if summary is not None:
        by = {r["server"]: r for r in summary["rows"]}
        cpu = [(server, by.get(server, {}).get("cpuUsPerMsg"), by.get(server, {}).get("cpuMin"),
                by.get(server, {}).get("cpuMax")) for server, _, _ in memory_rows]
        panels.append(("server CPU µs/msg at the fixed load", cpu, cpu_text))
    return bar_chart(f"conns · {variant}", panels)


def cost_model_chart(cm):
    c = cm["costs"]
    epoll = None if c["s"] is None or c["w"] is None else c["s"] + c["w"]
    items = [(f"n = {n}", m, None, None) for n, m in zip(cm["batches"], c["perOpAtN"])]
    if epoll is not None:
        items.append(("epoll: s + w", epoll, None, None))
    return bar_chart("the OpenAnolis cost model: one SEND's cost with n SENDs per io_uring_enter",
                     [("ns per SEND", items, lambda v: f"{v:,.0f}")])


# ------------------------------------------------------------------------------------------------ regions

class Page:
    """What one generation writes: region texts by key, and charts by file name."""

    def __init__(self, charts_dir, charts_link):
        self.regions = {}
        self.charts = {}
        self.charts_dir = charts_dir
        self.charts_link = charts_link
        self.summary_lines = {}
        self.headline = None

    def chart(self, name, svg, alt):
        self.charts[name] = svg
        return f"![{alt}]({self.charts_link}/{name})"


def render_region(page, key, unit, summaries, results, commit):
    lines = [provenance(results, commit), ""]
    costs = connection_cost_medians(results.get("connectionCosts") or []) if key == "conns" else []
    for s in summaries:
        if len(summaries) > 1 or key == "conns":
            lines += [f"**{s['workload']} · {s['variant']}**", ""]
        if key == "conns":
            mem = [(server, runs, m) for v, server, runs, m in costs if v == s["variant"]]
            mem = sorted(mem, key=lambda x: SERVER_ORDER.index(x[0]) if x[0] in SERVER_ORDER else len(SERVER_ORDER))
            if mem:
                lines += ["Memory per idle connection, bytes (live after a full collection, with the connections open "
                          "minus before them):", ""]
                lines += connection_cost_table(s["variant"], mem) + [""]
                name = f"{key}-{file_slug(s['variant'])}.svg"
                lines += [page.chart(name, conns_chart(s["variant"], mem, s),
                                     f"conns · {s['variant']}: memory per connection and CPU per message"), ""]
                lines += ["Server CPU at the fixed load:", ""]
        lines += summary_table(s, unit) + [""]
        lines += [" ".join(reading(s, unit)), ""]
        if key != "conns":
            name = f"{key}.svg" if len(summaries) == 1 else f"{key}-{file_slug(s['variant'])}.svg"
            lines += [page.chart(name, summary_chart(s, unit),
                                 f"{s['workload']} · {s['variant']}: server CPU per {unit} and rate"), ""]
    page.regions[key] = "\n".join(lines)


def render_cost_model(page, results, commit):
    cm = results["costModel"]
    lines = [provenance(results, commit), ""] + cost_model_lines(cm) + [""]
    lines += [page.chart("cost-model.svg", cost_model_chart(cm), "cost model: ns per SEND by batch size"), ""]
    page.regions[COST_MODEL[0]] = "\n".join(lines)


def summary_line(key, title, unit, summary):
    rw, ep, nu = row(summary, RINGWIRE), row(summary, BASELINE), row(summary, NETTY_IO_URING)
    if rw is None:
        return None
    cells = []
    for other in (ep, nu):
        if other is None:
            cells.append("-")
            continue
        ratio, low, high, judged = compare(rw, other)
        cells.append(ratio_text(ratio, low, high, judged))
    limit = rw.get("limit") or "-"
    return (f"| [{summary['workload']} · {summary['variant']}](#{slug(title)}) | {cells[0]} | {cells[1]} "
            f"| {fmt(rw.get('rateVsEpoll'), 2) if not open_loop(summary) else '-'} | {limit} |")


def headline(chosen, commit, charts_link, page):
    """The README's headline: the default suite's workloads, Ringwire over both Netty native transports, and a chart.

    @return the region's text, or None without those workloads
    """
    rows, bars_epoll, bars_uring, sources = [], [], [], []
    for key, title, unit, _ in REGIONS:
        if key not in HEADLINE or key not in chosen:
            continue
        summaries, results, _ = chosen[key]
        for s in summaries:
            rw, ep, nu = row(s, RINGWIRE), row(s, BASELINE), row(s, NETTY_IO_URING)
            if rw is None or ep is None or nu is None:
                continue
            cells, bars = [], []
            for other in (ep, nu):
                ratio, low, high, judged = compare(rw, other)
                cells.append(ratio_text(ratio, low, high, judged))
                bars.append((f"{s['workload']} · {s['variant']}", ratio, low, high))
            rates = ["fixed load" if open_loop(s) else fmt(rw["rate"] / other["rate"], 2)
                     if rw.get("rate") and other.get("rate") else "-" for other in (ep, nu)]
            rows.append(f"| [{s['workload']} · {s['variant']}](docs/benchmarks.md#{slug(title)}) | {cells[0]} "
                        f"| {cells[1]} | {rates[0]} | {rates[1]} |")
            bars_epoll.append(bars[0])
            bars_uring.append(bars[1])
            sources.append(provenance(results, commit))
    if not rows:
        return None
    chart = page.chart("headline.svg", bar_chart(
        "Ringwire's server CPU per message as a multiple of Netty's (below 1: cheaper)",
        [("× Netty epoll, median and 95 % interval", bars_epoll, lambda v: f"{v:.2f}"),
         ("× Netty io_uring", bars_uring, lambda v: f"{v:.2f}")]), "Ringwire's CPU per message over Netty's")
    chart = chart.replace(f"]({charts_link}/", "](docs/benchmarks/")
    lines = ["| workload | CPU per message × Netty epoll | × Netty io_uring | rate × Netty epoll | × Netty io_uring |",
             "|---|---|---|---:|---:|"] + rows + ["", chart, ""]
    lines += sorted(set(sources))
    return "\n".join(lines) + "\n"


def generate(result_files, charts_dir, charts_link, commit):
    """@return (page, notes): what to write, and what was left out"""
    page = Page(charts_dir, charts_link)
    chosen = {}  # region key -> (summaries, results)
    cost_model = None
    notes = []
    for path in result_files:
        results = load(path)
        found = {}
        for s in results.get("summaries") or []:
            for key, title, unit, select in REGIONS:
                if select(s):
                    found.setdefault(key, []).append(s)
                    break
            else:
                notes.append(f"{path}: {s['workload']} · {s['variant']} belongs to no region; left out")
        for key, summaries in found.items():
            # a region most runs measured wins (lab all's echo over cost-model's two-server one); else the last named
            runs = sum(s.get("totalRuns", 0) for s in summaries)
            if key not in chosen or runs >= chosen[key][2]:
                chosen[key] = (summaries, results, runs)
        if results.get("costModel"):
            cost_model = results
    summary_rows = []
    for key, title, unit, _ in REGIONS:
        if key not in chosen:
            continue
        summaries, results, _ = chosen[key]
        render_region(page, key, unit, summaries, results, commit)
        for s in summaries:
            line = summary_line(key, title, unit, s)
            if line:
                summary_rows.append(line)
    if cost_model is not None:
        render_cost_model(page, cost_model, commit)
    if summary_rows:
        dates = sorted({provenance(r, commit).split(" · `")[0] for _, r, _ in chosen.values()})
        head = ["Ringwire's server CPU per message over each Netty native transport's (ratio of medians, the lab's "
                "95 % interval; \"lower\"/\"higher\": every run of one below every run of the other), its rate over "
                "Netty epoll's, and which side set the pace. " + " ".join(
                    f"{d}." for d in dates), "",
                "| workload | × Netty epoll | × Netty io_uring | rate × epoll | limit |",
                "|---|---|---|---:|---|"]
        page.regions[SUMMARY] = "\n".join(head + summary_rows + [""])
    page.headline = headline(chosen, commit, charts_link, page)
    return page, notes


def apply(doc_text, page):
    """@return (the new text, keys of the regions in the page, keys left as they were)"""
    kept = []

    def replace(m):
        key = m.group(1)
        if key not in page.regions:
            kept.append(key)
            return m.group(0)
        return f"<!-- figures:{key} begin -->\n{page.regions[key]}<!-- figures:{key} end -->"

    text = MARKER.sub(replace, doc_text)
    present = {k for k, _ in MARKER.findall(doc_text)}
    missing = sorted(k for k in page.regions if k not in present)
    return text, missing, kept


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(here)
    ap = argparse.ArgumentParser(description="Writes the lab's results into docs/benchmarks.md's figures regions.")
    ap.add_argument("results", nargs="+", help="results.json files written by ./ringwire lab")
    ap.add_argument("--doc", default=os.path.join(repo, "docs", "benchmarks.md"))
    ap.add_argument("--charts", default=None, help="where the SVG charts go (default: docs/benchmarks/)")
    ap.add_argument("--commit", default=None, help="the commit the lab ran, where results.json does not record it")
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 if anything would change")
    ap.add_argument("--readme", default=None,
                    help="also write the default suite's headline into this file's figures:headline region")
    args = ap.parse_args(argv)
    charts = args.charts or os.path.join(os.path.dirname(os.path.abspath(args.doc)), "benchmarks")
    link = os.path.relpath(charts, os.path.dirname(os.path.abspath(args.doc))).replace(os.sep, "/")
    page, notes = generate(args.results, charts, link, args.commit)
    with open(args.doc, encoding="utf-8") as f:
        old = f.read()
    new, missing, kept = apply(old, page)
    for n in notes:
        print(f"note: {n}", file=sys.stderr)
    for key in missing:
        print(f"note: {args.doc} has no region '{key}'; its figures were not written", file=sys.stderr)
    if kept:
        print(f"note: regions left as they were (no results for them): {', '.join(kept)}", file=sys.stderr)
    changed = []
    if new != old:
        changed.append(args.doc)
    readme_old = readme_new = None
    if args.readme and page.headline:
        with open(args.readme, encoding="utf-8") as f:
            readme_old = f.read()
        headline_page = Page(charts, link)
        headline_page.regions["headline"] = page.headline
        readme_new, _, _ = apply(readme_old, headline_page)
        if readme_new != readme_old:
            changed.append(args.readme)
    for name, svg in sorted(page.charts.items()):
        path = os.path.join(charts, name)
        current = None
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                current = f.read()
        if current != svg:
            changed.append(path)
    if args.check:
        for c in changed:
            print(f"would change: {c}", file=sys.stderr)
        return 1 if changed else 0
    if new != old:
        with open(args.doc, "w", encoding="utf-8") as f:
            f.write(new)
    if readme_new is not None and readme_new != readme_old:
        with open(args.readme, "w", encoding="utf-8") as f:
            f.write(readme_new)
    os.makedirs(charts, exist_ok=True)
    for name, svg in sorted(page.charts.items()):
        with open(os.path.join(charts, name), "w", encoding="utf-8") as f:
            f.write(svg)
    for c in changed:
        print(f"wrote {c}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
