#!/usr/bin/env bash
# Where a request's server CPU goes, layer by layer: samples of CPU 1 (the server's core) with perf's cpu-clock (a
# software event: no hardware counters needed, which this kind of VM does not have), each sample put in one layer by
# bench/layers.py: the kernel's io_uring code, the kernel's syscall and epoll code, the rest of the kernel (TCP/IP,
# softirqs, scheduler), the transport's Java code, Netty's codecs, the rest of Netty, native code. Also the
# function-call IPIs per request on each CPU (/proc/interrupts, CAL). One JSON line per run.
#
#   bench/layers.sh [http|redis|echo] [rounds] > runs.jsonl; python3 bench/layers.py runs.jsonl
#   env: SERVERS="ringwire netty-epoll" (the examples' transports; for echo also c-echo_uring c-echo_epoll),
#        CONNS (http 256, redis 50, echo 500), SIZE (redis 1024, echo 128), DEPTH (echo: messages in flight per
#        connection, 1), SAMPLE_SECONDS (8), ANCHORS=dir (echo),
#        KEEP=dir (keeps each run's samples per symbol there, <server>-<round>.syms, to look further),
#        HTTP_RATE=R (http: the sampled run paced to about R requests/s, a pause before each write through wrk's
#        delay hook, the lab's wrk.lua, less ~1 ms for wrk's timer firing late; a fixed load, where the servers' own
#        costs compare; the lab's `http --rate` calibrates the pause, this does not: the rate reached is the one
#        divided by)
#
# http is driven by wrk -t1 (apt-get install wrk) against io.ringwire.examples.HttpHelloServer; redis by
# redis-benchmark SET (apt-get install redis-tools; the critique's test) against io.ringwire.examples.RedisServer, its
# measured run sized from the warm-up's rate to outlast the sampling; echo by the C load
# generator of the independent yardstick (its sources in the directory ANCHORS names, as for anchor-crosscheck.sh) against
# io.ringwire.examples.EchoServer. Each server: fresh JVM pinned to CPU 1 with the lab's flags (Netty may use
# sun.misc.Unsafe), 10 s of unmeasured load, then SAMPLE_SECONDS sampled in the middle of a longer run; servers alternate
# A B / B A across rounds. Needs perf (apt-get install linux-perf) and root (kernel stacks, JIT symbols).
set -euo pipefail
cd "$(dirname "$0")/.."
KIND=${1:-http}; ROUNDS=${2:-2}; SECONDS_SAMPLED=${SAMPLE_SECONDS:-8}
SERVERS=(${SERVERS:-ringwire netty-epoll})
JAVA=$(./ringwire help | sed -n 's/^JDK: //p')/bin/java
command -v perf >/dev/null || { echo "layers.sh needs perf (apt-get install linux-perf)" >&2; exit 2; }
OUT=$(mktemp -d)
pid=""; lp=""
# a step that fails (set -e) must not leave a server pinned to CPU 1, or its load, running
trap 'kill $pid $lp 2>/dev/null; rm -rf "$OUT"' EXIT
case "$KIND" in
  http) command -v wrk >/dev/null || { echo "layers.sh http needs wrk (apt-get install wrk)" >&2; exit 2; }
        CONNS=${CONNS:-256}; MAIN=io.ringwire.examples.HttpHelloServer ;;
  redis) command -v redis-benchmark >/dev/null \
          || { echo "layers.sh redis needs redis-benchmark (apt-get install redis-tools)" >&2; exit 2; }
        CONNS=${CONNS:-50}; SIZE=${SIZE:-1024}; MAIN=io.ringwire.examples.RedisServer ;;
  echo) CONNS=${CONNS:-500}; SIZE=${SIZE:-128}; MAIN=io.ringwire.examples.EchoServer
        cp "${ANCHORS:?"set ANCHORS to the directory of the C yardstick's sources"}"/{*.c,*.h,Makefile} "$OUT"/ && make -s -C "$OUT" >&2 ;;
  *) echo "usage: bench/layers.sh [http|redis|echo] [rounds]" >&2; exit 2 ;;
esac
./ringwire mvn -q -DskipTests -pl ringwire-examples -am package >&2
# the lab's flags (ServerJvm), and the JIT's symbols written at exit for perf
JVM_FLAGS=(--enable-native-access=ALL-UNNAMED -Xms1g -Xmx1g -XX:+UseG1GC --sun-misc-unsafe-memory-access=allow
  -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit)

RATE=100000 # redis: requests per second of the last run, to size the next one
load() { # $1 port, $2 seconds, $3 "paced" for HTTP_RATE: prints requests (or round trips) per second
  if [ "$KIND" = http ] && [ -n "${HTTP_RATE:-}" ] && [ "${3:-}" = paced ]; then
    taskset -c 0 wrk -t1 -c "$CONNS" -d "$2"s -s ringwire-lab/src/main/resources/io/ringwire/lab/load/wrk.lua \
      "http://127.0.0.1:$1/" -- 1 \
      "$(awk -v c="$CONNS" -v r="$HTTP_RATE" 'BEGIN { p = c * 1000 / r - 1; printf "%.3f", p < 0 ? 0 : p }')" \
      | awk '/Requests\/sec/ {print $2}'
  elif [ "$KIND" = http ]; then
    taskset -c 0 wrk -t1 -c "$CONNS" -d "$2"s "http://127.0.0.1:$1/" | awk '/Requests\/sec/ {print $2}'
  elif [ "$KIND" = redis ]; then
    taskset -c 0 redis-benchmark -h 127.0.0.1 -p "$1" -c "$CONNS" -n "$(awk -v r="$RATE" -v s="$2" \
      'BEGIN { printf "%d", r * s }')" -d "$SIZE" -t set --csv | awk -F'"' '$2 == "SET" {print $4}'
  else
    taskset -c 0 "$OUT/loadgen" --port "$1" --conns "$CONNS" --size "$SIZE" --depth "${DEPTH:-1}" --duration "$2" --warmup 0 \
      2>/dev/null | sed -n 's/.*"rps":\([0-9.]*\).*/\1/p'
  fi
}
cal() { awk '$1 == "CAL:" {print $2, $3}' /proc/interrupts; }

port=9400
for round in $(seq 1 "$ROUNDS"); do
  order=("${SERVERS[@]}")
  if (( round % 2 == 0 )); then
    order=(); for (( i=${#SERVERS[@]}-1; i>=0; i-- )); do order+=("${SERVERS[$i]}"); done
  fi
  for server in "${order[@]}"; do
    port=$((port + 1))
    case "$server" in
      c-echo_*) (exec taskset -c 1 "$OUT/${server#c-}" "$port" >/dev/null 2>&1) & ;;
      *) (exec taskset -c 1 "$JAVA" "${JVM_FLAGS[@]}" -cp ringwire-examples/target/ringwire-examples.jar "$MAIN" \
            "$port" 1 "$server" >/dev/null 2>&1) & ;;
    esac
    pid=$!
    for _ in $(seq 1 100); do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done
    RATE=$(load "$port" 10); RATE=${RATE:-100000}
    load "$port" $((SECONDS_SAMPLED + 6)) paced > "$OUT/rate" &
    lp=$!
    sleep 3
    read -r c0a c1a < <(cal)
    perf record -q -C 1 -e cpu-clock -F 1999 -g -o "$OUT/perf.data" -- sleep "$SECONDS_SAMPLED" 2>/dev/null
    read -r c0b c1b < <(cal)
    wait "$lp"
    kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
    pid=""; lp=""
    perf report -i "$OUT/perf.data" --no-children --sort dso,sym -g none --stdio -F sample,dso,sym 2>/dev/null \
      | grep -v '^#' > "$OUT/syms" || true
    if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp "$OUT/syms" "$KEEP/$server-$round.syms"; fi
    python3 bench/layers.py --run "$OUT/syms" "$(cat "$OUT/rate")" "$SECONDS_SAMPLED" 1999 \
      "{\"server\":\"$server\",\"round\":$round,\"kind\":\"$KIND\",\"conns\":$CONNS,\"depth\":${DEPTH:-1},\"cal_cpu0\":$((c0b - c0a)),\"cal_cpu1\":$((c1b - c1a))}"
  done
done
