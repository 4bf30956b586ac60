#!/bin/bash
# What the spool costs: spanprof forwarding to the decode-only sink under the generator at RATE
# spans/s (20 000) in 100-span requests, without and with a spool (on /tmp), PAIRS times (2) in
# turn; for each run, spanprof's CPU per accepted span over DURATION seconds (60) after WARMUP
# (60), from its process_cpu_seconds_total. Run from the
# repository root after `mvn -B -q install -DskipTests`.
set -euo pipefail
rate=${RATE:-20000}
duration=${DURATION:-60}
warmup=${WARMUP:-60}
. bench/spanprof-and-sink.sh
spanprof_heap_mb=${HEAP_MB:-1536}

metric() {
  curl -s localhost:9464/metrics | awk -v m="$1" '$1 == m || index($1, m "{") == 1 {s += $2} END {printf "%.6f", s}'
}

run() {
  local label=$1
  shift
  start_spanprof_and_sink "" -XX:+UseParallelGC "$@"
  java -cp bench/target/benchmarks.jar dev.spanprof.bench.LoadGenerator --target=localhost:4317 \
      --streams=4 --rate="$rate" --spans-per-request=100 --duration="${duration}s" \
      --warmup="${warmup}s" > /tmp/spanprof-generator.out 2>&1 &
  local generator=$!
  sleep "$warmup"
  local cpu0 spans0 cpu1 spans1
  cpu0=$(metric process_cpu_seconds_total); spans0=$(metric spanprof_received_spans_total)
  sleep "$duration"
  cpu1=$(metric process_cpu_seconds_total); spans1=$(metric spanprof_received_spans_total)
  wait "$generator" || true
  awk -v l="$label" -v c0="$cpu0" -v c1="$cpu1" -v s0="$spans0" -v s1="$spans1" \
      'BEGIN {printf "%-10s %.2f us of CPU per span (%d spans)\n", l, 1e6 * (c1 - c0) / (s1 - s0), s1 - s0}'
  kill "$service" "$sink" 2> /dev/null || true
  wait "$service" "$sink" 2> /dev/null || true
}

for pair in $(seq 1 "${PAIRS:-2}"); do
  run "no spool"
  spool=$(mktemp -d /tmp/spanprof-spool.XXXXXX)
  run "spool" -Dspanprof.export.spool.directory="$spool"
  rm -rf "$spool"
done
