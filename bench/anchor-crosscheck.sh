#!/usr/bin/env bash
# Cross-check against an independent C yardstick, its sources in the directory ANCHORS names (optional: the project
# does not depend on it). Runs the echo server example on each transport, pinned to CPU 1, against the C loadgen pinned to CPU 0, a
# fresh server per run, servers alternating A B A B across rounds. Prints one JSON line per run (loadgen's output plus
# "server" and "round"); summarize with bench/summarize.py.
#
# Each server is primed with unmeasured loadgen passes of 3 s (fresh connections each: connect, echo, close) until a
# pass in which its JIT compiler threads used under 5 % of a core, at most PRIME_MAX passes (default 4): the lab's
# warm-up rule. A first pass's closes deoptimize the hot methods that never saw a close, and a fixed warm-up left
# their recompilation inside the measured window (bulk echo: 1.1-1.8 us of compiler CPU per round trip for Ringwire,
# 0.9-1.1 for Netty epoll). "primes" and "jit_us_per_rt" (compiler CPU in the window) are added to each line, and for
# Ringwire the loop's counters over the server's whole life, priming passes included ("cqes_per_enter",
# "bytes_per_recv", "iovecs_per_write", "direct_recvs"), so that a run unlike its neighbours can be told apart.
#
#   bench/anchor-crosscheck.sh [rounds] [conns] [size] [depth] [duration] > runs.jsonl
#   env: SERVERS="ringwire netty-epoll ..." (ringwire-direct: Ringwire with -Dringwire.directDescriptors=true;
#        ringwire-base: Ringwire from BASE_JAR, another build's ringwire-examples.jar, for an A/B of two builds),
#        NETTY_UNSAFE=0 (Netty without sun.misc.Unsafe), ANCHORS=dir
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}; CONNS=${2:-500}; SIZE=${3:-128}; DEPTH=${4:-1}; DURATION=${5:-10}
ANCHORS=${ANCHORS:?"set ANCHORS to the directory of the C yardstick's sources (its *.c, *.h and Makefile)"}
BUILD=$(mktemp -d)
trap 'rm -rf "$BUILD"' EXIT # the C build and the servers' logs, also when a step fails
cp "$ANCHORS"/*.c "$ANCHORS"/*.h "$ANCHORS"/Makefile "$BUILD"/
make -s -C "$BUILD" >&2
JAVA=$(./ringwire help | sed -n 's/^JDK: //p')/bin/java
./ringwire mvn -q -DskipTests -pl ringwire-examples -am package >&2
SERVERS=(${SERVERS:-ringwire netty-io_uring netty-epoll c-echo_uring})
# the same flags for every Java server, the lab's (ServerJvm): Netty may use sun.misc.Unsafe, its best case;
# NETTY_UNSAFE=0 runs them all with -Dio.netty.noUnsafe=true instead
JVM_FLAGS=(--enable-native-access=ALL-UNNAMED -Xms1g -Xmx1g -XX:+UseG1GC)
if [ "${NETTY_UNSAFE:-1}" = 1 ]; then JVM_FLAGS+=(--sun-misc-unsafe-memory-access=allow)
else JVM_FLAGS+=(-Dio.netty.noUnsafe=true); fi
echo "java servers: ${JVM_FLAGS[*]}" >&2
PORT=9200
PRIME_MAX=${PRIME_MAX:-4}
HZ=$(getconf CLK_TCK)

jit_ticks() { # CPU ticks (utime + stime) of the JIT compiler threads of process $1
  local t sum=0 st name
  for t in /proc/"$1"/task/*; do
    name=$(cat "$t/comm" 2>/dev/null) || continue
    case "$name" in C1\ CompilerThre*|C2\ CompilerThre*)
      st=$(cat "$t/stat" 2>/dev/null) || continue
      st=${st##*) }; set -- $st; sum=$((sum + ${12} + ${13})) ;;
    esac
  done
  echo "$sum"
}

counters() { # the Ringwire loop's counters the examples print on SIGTERM, as JSON fields (nothing for others)
  local c n='[0-9]+' d='([0-9.]+)'
  c=$(grep -m1 'iterations=' "$1" 2>/dev/null) || return 0
  sed -E -n "s/.*cqes=$n \\($d\\/enter\\) recvs=$n \\($d B\\/recv\\) writes=$n \\($d iovecs.*directRecvs=($n).*/\\
,\"cqes_per_enter\":\\1,\"bytes_per_recv\":\\2,\"iovecs_per_write\":\\3,\"direct_recvs\":\\4/p" <<< "$c" | tr -d '\n'
}

start_server() { # $1 server name; prints the server's PID
  case "$1" in
    c-echo_uring) (exec taskset -c 1 "$BUILD/echo_uring" "$PORT" >/dev/null 2>&1) & ;;
    c-echo_epoll) (exec taskset -c 1 "$BUILD/echo_epoll" "$PORT" >/dev/null 2>&1) & ;;
    ringwire-direct) (exec taskset -c 1 "$JAVA" "${JVM_FLAGS[@]}" -Dringwire.directDescriptors=true \
          -jar ringwire-examples/target/ringwire-examples.jar "$PORT" 1 ringwire >"$BUILD/server-$PORT.log" 2>&1) & ;;
    ringwire-base) (exec taskset -c 1 "$JAVA" "${JVM_FLAGS[@]}" \
          -jar "${BASE_JAR:?ringwire-base needs BASE_JAR}" "$PORT" 1 ringwire >"$BUILD/server-$PORT.log" 2>&1) & ;;
    *) (exec taskset -c 1 "$JAVA" "${JVM_FLAGS[@]}" \
          -jar ringwire-examples/target/ringwire-examples.jar "$PORT" 1 "$1" >"$BUILD/server-$PORT.log" 2>&1) & ;;
  esac
  echo $!
}

for round in $(seq 1 "$ROUNDS"); do
  order=("${SERVERS[@]}")
  if (( round % 2 == 0 )); then # reverse every other round: A B A B, then B A B A
    order=(); for (( i=${#SERVERS[@]}-1; i>=0; i-- )); do order+=("${SERVERS[$i]}"); done
  fi
  for server in "${order[@]}"; do
    PORT=$((PORT + 1))
    pid=$(start_server "$server")
    for _ in $(seq 1 100); do (exec 3<>/dev/tcp/127.0.0.1/$PORT) 2>/dev/null && break; sleep 0.1; done
    # unmeasured passes until the JIT is quiet (C servers: one pass), then the measured run
    primes=0
    while (( primes < PRIME_MAX )); do
      before=$(jit_ticks "$pid")
      taskset -c 0 "$BUILD/loadgen" --port "$PORT" --conns "$CONNS" --size "$SIZE" --depth "$DEPTH" \
        --duration 3 --warmup 1 >/dev/null 2>&1 || true
      primes=$((primes + 1))
      # under 5 % of a core over the pass's 4 s: 0.2 s of ticks
      (( ($(jit_ticks "$pid") - before) * 100 < 20 * HZ )) && break
    done
    before=$(jit_ticks "$pid")
    line=$(taskset -c 0 "$BUILD/loadgen" --port "$PORT" --conns "$CONNS" --size "$SIZE" --depth "$DEPTH" \
      --duration "$DURATION" --warmup 2 --server-pid "$pid" 2>/dev/null || true)
    jit=$(( $(jit_ticks "$pid") - before ))
    rts=$(sed -n 's/.*"round_trips":\([0-9]*\).*/\1/p' <<< "$line")
    line="${line%\}},\"primes\":$primes,\"jit_us_per_rt\":$(awk -v j="$jit" -v hz="$HZ" -v n="${rts:-0}" \
      'BEGIN { printf "%.3f", (n > 0 ? j * 1e6 / hz / n : 0) }')}"
    kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done # its counters are written
    line="${line%\}}$(counters "$BUILD/server-$PORT.log")}"
    echo "{\"server\":\"$server\",\"round\":$round,${line#\{}"
  done
done
