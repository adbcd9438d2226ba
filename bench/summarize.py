#!/usr/bin/env python3
"""Medians per server and ratios to netty-epoll from anchor-crosscheck.sh's JSON lines (stdin or files)."""
import fileinput, json, statistics, collections

runs = collections.defaultdict(list)
for line in fileinput.input():
    line = line.strip()
    if line.startswith("{") and '"rps"' in line:
        r = json.loads(line)
        runs[r["server"]].append(r)

def med(rs, key):
    return statistics.median(r[key] for r in rs)

def opt(rs, key):  # fields older runs do not have
    vals = [r[key] for r in rs if isinstance(r.get(key), (int, float))]
    return f"{statistics.median(vals):g}" if vals else "-"

base = runs.get("netty-epoll")
print("| server | runs | rps (median) | rps min-max | x epoll | p99 us | CPU us/RT | CPU min-max | CPU x epoll "
      "| JIT us/RT | primes | mismatches+errors |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for server, rs in runs.items():
    rps = med(rs, "rps"); cpu = med(rs, "server_cpu_us_per_rt")
    x = rps / med(base, "rps") if base else float("nan")
    cx = cpu / med(base, "server_cpu_us_per_rt") if base else float("nan")
    bad = sum(r["mismatches"] + r["errors"] for r in rs)
    print(f"| {server} | {len(rs)} | {rps:,.0f} | {min(r['rps'] for r in rs):,.0f}-{max(r['rps'] for r in rs):,.0f} "
          f"| {x:.2f} | {med(rs, 'p99_us'):,.0f} | {cpu:.2f} "
          f"| {min(r['server_cpu_us_per_rt'] for r in rs):.2f}-{max(r['server_cpu_us_per_rt'] for r in rs):.2f} "
          f"| {cx:.2f} | {opt(rs, 'jit_us_per_rt')} | {opt(rs, 'primes')} | {bad} |")
