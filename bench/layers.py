#!/usr/bin/env python3
"""Server CPU per request by layer, from bench/layers.sh.

  python3 bench/layers.py runs.jsonl        # the table: per server the median µs per request of each layer
  (bench/layers.sh calls `layers.py --run SYMS RATE SECONDS HZ BASE_JSON` to turn one perf report into a line)
"""
import json
import re
import statistics
import sys

LAYERS = ["kernel: io_uring", "kernel: syscalls, epoll, poll", "kernel: TCP/IP, softirq, the rest",
          "Java: the transport", "Java: Netty's codecs", "Java: the rest of Netty", "Java: the rest",
          "native: libc, JVM, JNI", "user: C server"]

KERNEL_IO_URING = re.compile(r"(__)?io_|llist_reverse_order$|sock_from_file$|__do_sys_io_uring")
KERNEL_SYSCALL = re.compile(r"(do_syscall_64|entry_SYSCALL|syscall_exit|syscall_return|__x64_sys_|__sys_|ep_|"
                            r"do_epoll|fdget|fput|__fget|sock_poll$|tcp_poll$|__ia32_|ksys_)")
TRANSPORT = re.compile(r"io\.ringwire\.|io\.netty\.channel\.(epoll|uring|unix|nio)\.|sun\.nio\.ch\.|"
                       r"io\.netty\.channel\.socket\.nio")


def layer(dso, kind, sym):
    if kind == "k":
        if KERNEL_IO_URING.match(sym):
            return "kernel: io_uring"
        if KERNEL_SYSCALL.match(sym):
            return "kernel: syscalls, epoll, poll"
        return "kernel: TCP/IP, softirq, the rest"
    if not dso.startswith("[JIT]"):  # libc, libjvm, Netty's JNI library
        return "native: libc, JVM, JNI"
    if TRANSPORT.search(sym):
        return "Java: the transport"
    if "io.netty.handler.codec" in sym:
        return "Java: Netty's codecs"
    if "io.netty." in sym:
        return "Java: the rest of Netty"
    return "Java: the rest"


def run(syms, rate, seconds, hz, base):
    """One perf report (`--sort dso,sym -F sample,dso,sym`) → µs of CPU 1 per request in each layer, merged into base."""
    samples = {name: 0 for name in LAYERS}
    c_server = base.get("server", "").startswith("c-")
    for line in open(syms):
        m = re.match(r"\s*(\d+)\s+(.*?)\s+\[(.)\]\s+(.*)", line)
        if not m:
            continue
        n, dso, kind, sym = int(m.group(1)), m.group(2), m.group(3), m.group(4).strip()
        name = "user: C server" if c_server and kind != "k" else layer(dso, kind, sym)
        samples[name] += n
    requests = float(rate) * float(seconds)
    per_request = {name: n / requests * 1e6 / float(hz) for name, n in samples.items()}
    out = dict(base)
    out["rate"] = float(rate)
    out["us_per_request"] = {k: round(v, 4) for k, v in per_request.items()}
    out["us_per_request_total"] = round(sum(per_request.values()), 4)
    out["ipis_per_request"] = {"cpu0": round(base["cal_cpu0"] / requests, 5),
                               "cpu1": round(base["cal_cpu1"] / requests, 5)}
    print(json.dumps(out))


def table(path):
    runs = [json.loads(line) for line in open(path) if line.strip()]
    servers = list(dict.fromkeys(r["server"] for r in runs))
    by = {s: [r for r in runs if r["server"] == s] for s in servers}

    def med(s, f):
        return statistics.median(f(r) for r in by[s])

    print("µs of the server's core per request, median of %s runs each (%s)" % (
        "/".join(str(len(by[s])) for s in servers), ", ".join(servers)))
    print("| layer | " + " | ".join(servers) + " |")
    print("|---|" + "---:|" * len(servers))
    for name in LAYERS:
        if all(med(s, lambda r: r["us_per_request"].get(name, 0)) == 0 for s in servers):
            continue
        print("| %s | %s |" % (name, " | ".join("%.3f" % med(s, lambda r: r["us_per_request"].get(name, 0))
                                                for s in servers)))
    print("| **total** | %s |" % " | ".join("**%.3f**" % med(s, lambda r: r["us_per_request_total"])
                                            for s in servers))
    print("| each run's total | %s |" % " | ".join(", ".join("%.2f" % r["us_per_request_total"] for r in by[s])
                                                 for s in servers))
    print("| requests/s | %s |" % " | ".join("%.0f" % med(s, lambda r: r["rate"]) for s in servers))
    for cpu in ("cpu0", "cpu1"):
        print("| function-call IPIs per 1,000 requests, %s | %s |" % (
            cpu, " | ".join("%.2f" % (1000 * med(s, lambda r: r["ipis_per_request"][cpu])) for s in servers)))


if __name__ == "__main__":
    if len(sys.argv) == 7 and sys.argv[1] == "--run":
        run(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], json.loads(sys.argv[6]))
    elif len(sys.argv) == 2:
        table(sys.argv[1])
    else:
        sys.exit(__doc__)
