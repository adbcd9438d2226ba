#!/usr/bin/env python3
"""Markdown tables from the lab's results.json, for docs/benchmarks.md.

    bench/lab-markdown.py lab-results/results.json
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from labresults import connection_cost_medians, connection_cost_table, cost_model_lines, fmt, load  # noqa: E402


def main(path):
    d = load(path)
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
    variant = None
    rows = []
    for v, server, runs, m in connection_cost_medians(d.get("connectionCosts") or []):
        if v != variant:
            if rows:
                print("\n".join(connection_cost_table(variant, rows)))
            variant, rows = v, []
            print(f"\n### conns · {v} · memory per connection (bytes; live after a full GC, with the connections "
                  "minus before them)\n")
        rows.append((server, runs, m))
    if rows:
        print("\n".join(connection_cost_table(variant, rows)))
    cm = d.get("costModel")
    if cm:
        print()
        print("\n".join(cost_model_lines(cm)))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "lab-results/results.json")
