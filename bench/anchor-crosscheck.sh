#!/usr/bin/env bash
# Cross-check against the independent C yardstick in ../shared/anchors/c (optional: the project does not depend on
# it). Runs the echo server example on each transport, pinned to CPU 1, against the C loadgen pinned to CPU 0, a
# fresh server per run, servers alternating A B A B across rounds. Prints one JSON line per run (loadgen's output plus
# "server" and "round"); summarize with bench/summarize.py.
#
#   bench/anchor-crosscheck.sh [rounds] [conns] [size] [depth] [duration] > runs.jsonl
#   env: SERVERS="ringwire netty-epoll ...", NETTY_UNSAFE=0 (Netty without sun.misc.Unsafe), ANCHORS=dir
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}; CONNS=${2:-500}; SIZE=${3:-128}; DEPTH=${4:-1}; DURATION=${5:-10}
ANCHORS=${ANCHORS:-../shared/anchors/c}
BUILD=$(mktemp -d)
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

start_server() { # $1 server name; prints the server's PID
  case "$1" in
    c-echo_uring) (exec taskset -c 1 "$BUILD/echo_uring" "$PORT" >/dev/null 2>&1) & ;;
    c-echo_epoll) (exec taskset -c 1 "$BUILD/echo_epoll" "$PORT" >/dev/null 2>&1) & ;;
    *) (exec taskset -c 1 "$JAVA" "${JVM_FLAGS[@]}" \
          -jar ringwire-examples/target/ringwire-examples.jar "$PORT" 1 "$1" >/dev/null 2>&1) & ;;
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
    # unmeasured warm-up pass (JIT), then the measured run
    taskset -c 0 "$BUILD/loadgen" --port "$PORT" --conns "$CONNS" --size "$SIZE" --depth "$DEPTH" \
      --duration 3 --warmup 1 >/dev/null 2>&1 || true
    line=$(taskset -c 0 "$BUILD/loadgen" --port "$PORT" --conns "$CONNS" --size "$SIZE" --depth "$DEPTH" \
      --duration "$DURATION" --warmup 2 --server-pid "$pid" 2>/dev/null || true)
    kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
    echo "{\"server\":\"$server\",\"round\":$round,${line#\{}"
  done
done
rm -rf "$BUILD"
