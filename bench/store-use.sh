#!/bin/bash
# How much of the span store spanprof's spans use under a flat-out load: the decode-only sink as
# next hop, spanprof, and the load generator (30 s of warm-up, 30 s measured), with spanprof's
# buffered spans, export queue and span-store gauges printed every 5 s, through the drain after
# the load. Run from the repository root after `mvn -B -q install -DskipTests`; spanprof's JVM
# options besides the heap in SPANPROF_JAVA_OPTS (default: the parallel collector and its
# default span store), another build in SPANPROF_JAR.
set -euo pipefail
. bench/spanprof-and-sink.sh
# shellcheck disable=SC2086
start_spanprof_and_sink "" ${SPANPROF_JAVA_OPTS:--XX:+UseParallelGC}
java -cp bench/target/benchmarks.jar dev.spanprof.bench.LoadGenerator --target=localhost:4317 \
    --streams=4 --duration=30s --warmup=30s > /tmp/spanprof-generator.out 2>&1 &
generator=$!
for seconds in $(seq 5 5 70); do
  sleep 5
  curl -s localhost:9464/metrics \
    | grep -E '^spanprof_(buffered_spans|export_queue_spans|span_store_in_use_bytes|span_store_overflow_total) ' \
    | awk -v t="$seconds" '{sub("spanprof_", "", $1); line = line sprintf(" %s=%.0f", $1, $2)}
                           END {print "t=" t "s" line}'
done
wait "$generator"
cat /tmp/spanprof-generator.out
