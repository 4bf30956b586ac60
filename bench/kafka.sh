#!/bin/bash
# The Kafka ingest's cost (BENCHMARKS.md, "Kafka"): spanprof's CPU per span read from Kafka
# against per span received over gRPC, and what rebuilding the windows from the topic costs.
# A real broker (KRaft, one node, from kafka-broker/'s class path) on ports 19092/19093, data
# under a temporary directory; spanprof forwarding to the decode-only sink as in fixed-rate.sh.
#   1. For each of RATES (spans/s, default 10000): spanprof reading a topic that KafkaLoad
#      writes at the rate (one record per 20-span trace, as the Collector's Kafka exporter
#      writes), then spanprof fed the same workload over gRPC by the generator at the rate
#      (512-span requests, 4 streams); each measured over DURATION (60) s after WARMUP (60) s:
#      CPU from process_cpu_seconds_total, spans from spanprof_received_spans_total.
#   2. Flat out: BACKLOG_SPANS (10 000 000) written first, then one spanprof reading them as fast
#      as it can: its CPU per span and spans/s over FLAT_DURATION (30) s after 20 s.
#   3. The replay: that spanprof stopped (it commits and leaves the group) and started again:
#      it rebuilds the windows from every record of the backlog (all within one window); the
#      time and CPU until it has read them all again.
#   4. The reference for 2: spanprof fed flat out over gRPC by the generator, as long.
# RATES="" runs 2 to 4 only.
# Run from the repository root after `mvn -B -q install -DskipTests`.
set -euo pipefail
rates=${RATES-10000}
warmup=${WARMUP:-60}
duration=${DURATION:-60}
backlog=${BACKLOG_SPANS:-10000000}
flat_duration=${FLAT_DURATION:-30}
. bench/spanprof-and-sink.sh
spanprof_heap_mb=${HEAP_MB:-1536}
jar=bench/target/benchmarks.jar
data=$(mktemp -d /tmp/spanprof-kafka.XXXXXX)
broker_cp=$(cat kafka-broker/target/broker.classpath)
broker=
cleanup() {
  kill "${service:-}" "${sink:-}" 2> /dev/null || true
  wait "${service:-}" "${sink:-}" 2> /dev/null || true
  [ -n "$broker" ] && kill "$broker" 2> /dev/null && wait "$broker" 2> /dev/null || true
  rm -rf "$data"
}
trap cleanup EXIT
# spanprof-and-sink.sh's start sets a trap of its own: this one stops the broker too.
start() {
  start_spanprof_and_sink "$@"
  trap cleanup EXIT
}

cat > "$data/server.properties" << PROPERTIES
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:19093
listeners=PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093
advertised.listeners=PLAINTEXT://127.0.0.1:19092
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$data/log
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
PROPERTIES
cluster=$(java -cp "$broker_cp" kafka.tools.StorageTool random-uuid 2> /dev/null)
java -cp "$broker_cp" kafka.tools.StorageTool format -t "$cluster" -c "$data/server.properties" \
    > "$data/format.log" 2>&1
java -Xmx1g -XX:+UseParallelGC -cp "$broker_cp" kafka.Kafka "$data/server.properties" \
    > "$data/broker.log" 2>&1 &
broker=$!
until (exec 3<> /dev/tcp/127.0.0.1/19092) 2> /dev/null; do sleep 0.3; done

metric() {
  curl -s localhost:9464/metrics | awk -v m="$1" '$1 == m || index($1, m "{") == 1 {s += $2} END {printf "%.6f", s}'
}
kafka_spans='spanprof_received_spans_total{transport="kafka"}'
# Prints "<label>: <µs per span>, <spans/s>, <share of a core>" over DURATION seconds.
window() {
  local label=$1 spans_metric=$2 cpu0 spans0 cpu1 spans1
  cpu0=$(metric process_cpu_seconds_total); spans0=$(metric "$spans_metric")
  sleep "$duration"
  cpu1=$(metric process_cpu_seconds_total); spans1=$(metric "$spans_metric")
  awk -v l="$label" -v c0="$cpu0" -v c1="$cpu1" -v s0="$spans0" -v s1="$spans1" -v d="$duration" \
      'BEGIN {printf "%-28s %6.2f us of CPU per span, %8.0f spans/s, %4.2f of a core\n", l, 1e6 * (c1 - c0) / (s1 - s0), (s1 - s0) / d, (c1 - c0) / d}'
}
stop_spanprof() {
  kill "$service" "$sink" 2> /dev/null || true
  wait "$service" "$sink" 2> /dev/null || true
}
kafka_flags() {
  echo -Dspanprof.kafka.bootstrap-servers=127.0.0.1:19092 -Dspanprof.kafka.topic="$1" \
      -Dspanprof.kafka.group-id="$1"
}

for rate in $rates; do
  topic=rate-$rate
  # shellcheck disable=SC2046
  start "" -XX:+UseParallelGC $(kafka_flags "$topic")
  java -cp "$jar" dev.spanprof.bench.KafkaLoad --bootstrap=127.0.0.1:19092 --topic="$topic" \
      --rate="$rate" --duration="$((warmup + duration + 5))s" > "$data/load.out" 2>&1 &
  load=$!
  sleep "$warmup"
  window "kafka at $rate spans/s" "$kafka_spans"
  wait "$load"
  stop_spanprof
  start "" -XX:+UseParallelGC
  java -cp "$jar" dev.spanprof.bench.LoadGenerator --target=localhost:4317 --streams=4 \
      --rate="$rate" --duration="$((duration + 5))s" --warmup="${warmup}s" > "$data/gen.out" 2>&1 &
  load=$!
  sleep "$warmup"
  window "grpc at $rate spans/s" 'spanprof_received_spans_total{transport="grpc"}'
  wait "$load" || true
  stop_spanprof
done

java -cp "$jar" dev.spanprof.bench.KafkaLoad --bootstrap=127.0.0.1:19092 --topic=backlog \
    --spans="$backlog"
# A window long enough that the whole backlog is within it when the windows are rebuilt.
long_window=-Dspanprof.ranking.window=15m
# shellcheck disable=SC2046
start "" -XX:+UseParallelGC $(kafka_flags backlog) "$long_window"
sleep 20
duration=$flat_duration window "kafka flat out (a backlog)" "$kafka_spans"
until [ "$(metric "$kafka_spans" | cut -d. -f1)" -ge "$backlog" ]; do sleep 1; done
stop_spanprof
# shellcheck disable=SC2046
start "" -XX:+UseParallelGC $(kafka_flags backlog) "$long_window"
start=$(date +%s.%N)
cpu0=$(metric process_cpu_seconds_total)
# Every record read again: to rebuild the windows, or, those not yet forwarded when the first
# spanprof stopped (it commits at the first not done), read as new.
read_again() {
  metric spanprof_kafka_window_rebuilt_spans_total
  echo
  metric "$kafka_spans"
}
until [ "$(read_again | awk '{s += $1} END {printf "%d", s}')" -ge "$backlog" ]; do
  sleep 0.5
done
cpu1=$(metric process_cpu_seconds_total)
awk -v n="$backlog" -v t0="$start" -v t1="$(date +%s.%N)" -v c0="$cpu0" -v c1="$cpu1" \
    -v rebuilt="$(metric spanprof_kafka_window_rebuilt_spans_total)" \
    'BEGIN {printf "%-28s %6.2f us of CPU per span, %8.0f spans/s, %.1f s for %d spans (%d rebuilt, the rest read as new)\n", "replay (windows rebuilt)", 1e6 * (c1 - c0) / n, n / (t1 - t0), t1 - t0, n, rebuilt}'
stop_spanprof

# The reference for the flat-out figure: the generator flat out over gRPC, for as long.
start "" -XX:+UseParallelGC
java -cp "$jar" dev.spanprof.bench.LoadGenerator --target=localhost:4317 --streams=4 \
    --duration="$((20 + flat_duration + 5))s" > "$data/gen.out" 2>&1 &
load=$!
sleep 20
duration=$flat_duration window "grpc flat out" 'spanprof_received_spans_total{transport="grpc"}'
wait "$load" || true
