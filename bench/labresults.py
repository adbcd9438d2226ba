"""Reading the lab's results.json: what bench/lab-markdown.py and bench/benchmarks-report.py share.

The lab's figures are worked out in Java (ringwire-lab: Summary, Stats, ConnectionCost, CostModel); this module only
formats them, and repeats one statistic the file does not carry for every pair of servers: the 95 % bootstrap
interval of a ratio of medians, computed exactly as Stats.ratioInterval computes it (the same resamples from the same
seed of java.util.SplittableRandom), so that a ratio to Netty io_uring reads like the lab's ratio to Netty epoll.
"""
import json
import math
import statistics


def load(path):
    """@return the parsed results.json"""
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def fmt(v, digits=0):
    """A figure with thousands separators, or '-' where the lab wrote null (a figure that does not apply)."""
    if v is None:
        return "-"
    if digits == 0:
        return f"{v:,.0f}"
    return f"{v:.{digits}f}"


def open_loop(summary):
    """@return whether the summary's load was offered at a fixed rate"""
    return any(r.get("offeredRate") is not None for r in summary["rows"])


# ------------------------------------------------------------------------------------------------ the conns workload

CONNECTION_COST_KEYS = ["connectsPerSec", "heapPerConn", "nativePerConn", "gcPerConn", "rssPerConn",
                        "transportPerConn", "nettyPerConn", "otherPerConn"]


def connection_cost_medians(costs):
    """The conns workload's memory per connection, medians over rounds per (variant, server), as the lab's own table.

    @return [(variant, server, runs, {key: median})] in the order they first ran
    """
    groups = {}
    for c in costs:
        groups.setdefault((c["variant"], c["server"]), []).append(c)
    out = []
    for (variant, server), g in groups.items():
        out.append((variant, server, len(g), {k: statistics.median(x[k] for x in g) for k in CONNECTION_COST_KEYS}))
    return out


def connection_cost_table(variant, rows):
    """@param rows [(server, runs, medians)] @return the Markdown table of memory per connection"""
    lines = ["| server | runs | set-up conns/s | heap | native | GC | total | RSS | transport's own | rest of Netty "
             "| JDK and arrays |",
             "|---|" + "---:|" * 10]
    for server, runs, m in rows:
        total = m["heapPerConn"] + m["nativePerConn"] + m["gcPerConn"]
        own = "-" if server.startswith("blocking") else fmt(m["transportPerConn"])
        lines.append(f"| {server} | {runs} | {fmt(m['connectsPerSec'])} | {fmt(m['heapPerConn'])} "
                     f"| {fmt(m['nativePerConn'])} | {fmt(m['gcPerConn'])} | {fmt(total)} | {fmt(m['rssPerConn'])} "
                     f"| {own} | {fmt(m['nettyPerConn'])} | {fmt(m['otherPerConn'])} |")
    return lines


# ------------------------------------------------------------------------------------------------ the OpenAnolis cost model

def cost_model_lines(cm):
    """@return Markdown lines for the cost model: s, w, t, the cost per SEND at each batch, the echo's prediction"""
    c = cm["costs"]
    epoll = None if c["s"] is None or c["w"] is None else c["s"] + c["w"]
    lines = [f"Cost model: s = {fmt(c['s'])} ns, w = {fmt(c['w'])} ns, t = {fmt(c['t'])} ns "
             f"(epoll s + w = {fmt(epoll)} ns)", ""]
    for caveat in c.get("caveats") or []:
        lines.append(f"- {caveat}")
    if c.get("caveats"):
        lines.append("")
    lines.append("| n | model (t+s)/n ns | s/n + t ns | measured per SEND ns | measured / epoll |")
    lines.append("|---:|---:|---:|---:|---:|")
    for n, m in zip(cm["batches"], c["perOpAtN"]):
        model = "-" if c["t"] is None or c["s"] is None else f"{(c['t'] + c['s']) / n:.0f}"
        per_op = "-" if c["t"] is None or c["s"] is None else f"{c['s'] / n + c['t']:.0f}"
        ratio = "-" if m is None or not epoll else f"{m / epoll:.2f}"
        lines.append(f"| {n} | {model} | {per_op} | {fmt(m)} | {ratio} |")
    if cm.get("observedN") is not None:
        lines.append("")
        lines.append(f"Echo {cm['echoVariant']}: Ringwire n = {cm['observedN']:.2f} SQEs per enter; predicted "
                     f"io_uring/epoll {fmt(cm.get('seedPredictedRatio'), 2)} (the model's formula) or "
                     f"{fmt(cm.get('perOpPredictedRatio'), 2)} (per operation); measured "
                     f"{fmt(cm.get('measuredRatio'), 2)}.")
    return lines


# ------------------------------------------------------------------------------------------------ the lab's statistics

_M64 = (1 << 64) - 1
_GOLDEN_GAMMA = 0x9e3779b97f4a7c15


def _int32(x):
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x & 0x80000000 else x


class SplittableRandom:
    """java.util.SplittableRandom(seed): nextInt() and nextInt(bound), bit for bit."""

    def __init__(self, seed):
        self._seed = seed & _M64

    def next_int(self):
        self._seed = (self._seed + _GOLDEN_GAMMA) & _M64
        z = self._seed
        z = ((z ^ (z >> 33)) * 0x62A9D9ED799705F5) & _M64
        return _int32((((z ^ (z >> 28)) * 0xCB24D0A295A13E3) & _M64) >> 32)

    def next_bounded(self, bound):
        """RandomSupport.boundedNextInt: rejects the over-represented candidates, in 32-bit arithmetic."""
        r = self.next_int()
        m = bound - 1
        if bound & m == 0:
            return r & m
        u = (r & 0xFFFFFFFF) >> 1
        while True:
            r = u % bound
            if _int32(u + m - r) >= 0:
                return r
            u = (self.next_int() & 0xFFFFFFFF) >> 1


def median(values):
    """@return the median (the mean of the middle two for an even count), as Stats.median"""
    s = sorted(values)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


RESAMPLES = 4000
SEED = 0x5EED


def ratio_interval(a, b):
    """A 95 % bootstrap interval of median(a) / median(b), as Stats.ratioInterval.

    @return (low, high), or (None, None) when either side has no run
    """
    if not a or not b:
        return None, None
    rnd = SplittableRandom(SEED)
    ratios = []
    for _ in range(RESAMPLES):
        bx = [a[rnd.next_bounded(len(a))] for _ in a]
        by = [b[rnd.next_bounded(len(b))] for _ in b]
        ratios.append(median(bx) / median(by))
    ratios.sort()
    return ratios[int(0.025 * (RESAMPLES - 1))], ratios[math.ceil(0.975 * (RESAMPLES - 1))]


def measurable(a, b):
    """Stats.measurable: -1 when every run of a is below every run of b, 1 when above, 0 when the ranges overlap or
    either side has fewer than two runs."""
    if len(a) < 2 or len(b) < 2:
        return 0
    if max(a) < min(b):
        return -1
    if min(a) > max(b):
        return 1
    return 0
