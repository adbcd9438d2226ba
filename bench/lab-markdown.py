#!/usr/bin/env python3
"""Markdown tables from the lab's results.json, for docs/benchmarks.md.

    bench/lab-markdown.py lab-results/results.json
"""
import json
import statistics
import sys


def fmt(v, digits=0):
    if v is None:
        return "-"
    if digits == 0:
        return f"{v:,.0f}"
    return f"{v:.{digits}f}"


def main(path):
    d = json.load(open(path))
    for s in d["summaries"]:
        open_loop = any(r["offeredRate"] is not None for r in s["rows"])
        print(f"### {s['workload']} · {s['variant']}\n")
        print(f"| server | runs | {'answers/s' if open_loop else 'msgs/s'} | min-max | × epoll | p50 µs | p99 µs "
              "| CPU µs/msg | CPU min-max | CPU × epoll (95 % interval) | server cores | JIT cores | loadgen cores | limit | RSS MiB | non-heap MiB | heap peak MiB | heap live MiB "
              "| GCs | alloc B/msg | SQEs/enter | bad | starved |")
        print("|---|" + "---:|" * 12 + "---|" + "---:|" * 9)
        for r in s["rows"]:
            print(f"| {r['server']} | {r['runs']} | {fmt(r['rate'])} | {fmt(r['rateMin'])}-{fmt(r['rateMax'])} "
                  f"| {fmt(r['rateVsEpoll'], 2)} | {fmt(r['p50Us'])} | {fmt(r['p99Us'])} | {fmt(r['cpuUsPerMsg'], 2)} "
                  f"| {fmt(r.get('cpuMin'), 2)}-{fmt(r.get('cpuMax'), 2)} "
                  f"| {fmt(r['cpuVsEpoll'], 2)} ({fmt(r.get('cpuVsEpollLow'), 2)}-{fmt(r.get('cpuVsEpollHigh'), 2)}) "
                  f"| {fmt(r['serverUtil'], 2)} | {fmt(r['jitUtil'], 2)} "
                  f"| {fmt(r['loadgenUtil'], 2)} | {r.get('limit') or '-'} | {fmt(r['peakRssMiB'])} | {fmt(r.get('nonHeapMiB'))} | {fmt(r['heapPeakMiB'])} "
                  f"| {fmt(r.get('liveHeapMiB'))} | {fmt(r['gcCount'])} | {fmt(r.get('allocBytesPerMsg'))} | {fmt(r['sqesPerEnter'], 1)} | {r['mismatches'] + r['errors']} | {r.get('starved', 0)} |")
        print()
    for v in d["verdicts"]:
        print(f"- {v}")
    costs = d.get("connectionCosts") or []
    if costs:
        # medians over rounds per (variant, server), as the lab's own table
        groups = {}
        for c in costs:
            groups.setdefault((c["variant"], c["server"]), []).append(c)
        keys = ["connectsPerSec", "heapPerConn", "nativePerConn", "gcPerConn", "rssPerConn", "transportPerConn",
                "nettyPerConn", "otherPerConn"]
        variant = None
        for (v, server), g in groups.items():
            if v != variant:
                variant = v
                print(f"\n### conns · {v} · memory per connection (bytes; live after a full GC, with the connections "
                      "minus before them)\n")
                print("| server | runs | set-up conns/s | heap | native | GC | total | RSS | transport's own | "
                      "rest of Netty | JDK and arrays |")
                print("|---|" + "---:|" * 10)
            m = {k: statistics.median(x[k] for x in g) for k in keys}
            total = m["heapPerConn"] + m["nativePerConn"] + m["gcPerConn"]
            own = "-" if server.startswith("blocking") else fmt(m["transportPerConn"])
            print(f"| {server} | {len(g)} | {fmt(m['connectsPerSec'])} | {fmt(m['heapPerConn'])} "
                  f"| {fmt(m['nativePerConn'])} | {fmt(m['gcPerConn'])} | {fmt(total)} | {fmt(m['rssPerConn'])} "
                  f"| {own} | {fmt(m['nettyPerConn'])} | {fmt(m['otherPerConn'])} |")
    cm = d.get("costModel")
    if cm:
        c = cm["costs"]
        epoll = None if c['s'] is None or c['w'] is None else c['s'] + c['w']
        print(f"\nCost model: s = {fmt(c['s'])} ns, w = {fmt(c['w'])} ns, t = {fmt(c['t'])} ns "
              f"(epoll s + w = {fmt(epoll)} ns)\n")
        for caveat in c.get("caveats") or []:
            print(f"- {caveat}")
        print("| n | seed (t+s)/n ns | s/n + t ns | measured per SEND ns | measured / epoll |")
        print("|---:|---:|---:|---:|---:|")
        for n, m in zip(cm["batches"], c["perOpAtN"]):
            print(f"| {n} | {(c['t'] + c['s']) / n:.0f} | {c['s'] / n + c['t']:.0f} | {m:.0f} "
                  f"| {m / (c['s'] + c['w']):.2f} |")
        if cm.get("observedN") is not None:
            print(f"\nEcho {cm['echoVariant']}: Ringwire n = {cm['observedN']:.2f} SQEs per enter; predicted "
                  f"io_uring/epoll {cm['seedPredictedRatio']:.2f} (seed's formula) or {cm['perOpPredictedRatio']:.2f} "
                  f"(per operation); measured {cm['measuredRatio']:.2f}.")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "lab-results/results.json")
