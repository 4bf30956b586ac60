#!/bin/bash
# One end-to-end run as BENCHMARKS.md reports it (Targets): the decode-only sink as next hop,
# spanprof (ParallelGC, a 512 MB span store, -Xlog:gc) and the load generator flat out with
# --compare, 4 streams, WARMUP seconds of warm-up (default 150, the steady state of
# a 512 MB store) and 60 s measured; /metrics scraped every 15 s through the whole run, as
# Prometheus would. Prints the generator's report, then what the scrapes took, and the allocation
# per accepted span from the GC log (bench/gc-allocation.py). Run from the repository root after
# `mvn -B -q install -DskipTests`; SPANPROF_JAR runs another build of the service (the base of a
# comparison: run the two in alternation), SPANPROF_JAVA_OPTS adds JVM options, NEXT_HOP=undecoded
# makes the next hop drop each request unparsed.
set -euo pipefail
warmup=${WARMUP:-150}
jar=bench/target/benchmarks.jar
gc_log=/tmp/spanprof-e2e-gc.log
scrapes=/tmp/spanprof-e2e-scrapes.txt
: > "$scrapes"
. bench/spanprof-and-sink.sh
# shellcheck disable=SC2086
start_spanprof_and_sink "" -XX:+UseParallelGC -Dspanprof.ingest.span-store-size=512MB \
    -Xlog:gc*=info:file="$gc_log" ${SPANPROF_JAVA_OPTS:-}
( while true; do
    curl -s -o /dev/null -w '%{time_total}\n' localhost:9464/metrics >> "$scrapes"
    sleep 15
  done ) &
scraper=$!
trap 'kill $scraper $service $sink 2>/dev/null || true; wait $service $sink 2>/dev/null || true' EXIT
java -cp "$jar" dev.spanprof.bench.LoadGenerator --target=localhost:4317 --streams=4 \
    --duration=60s --warmup="${warmup}s" --compare | tee /tmp/spanprof-e2e-generator.out
kill "$scraper"
metrics=$(curl -s localhost:9464/metrics)
echo "$metrics" | grep -E '^spanprof_analysis_failed_spans_total' || true
echo "duration series: $(echo "$metrics" | grep -c '^spanprof_duration_seconds_count' || true)"
sort -n "$scrapes" | awk '{ v[NR] = $1 } END {
  printf "scrapes of /metrics: %d, median %.2f s, longest %.2f s\n", NR, v[int((NR + 1) / 2)], v[NR] }'
# The GC log must end with the run: gc-allocation.py reads the 60 s before its last 5 s.
kill "$service" && wait "$service" 2>/dev/null || true
# spanprof's run is the generator's last "accepted N spans (R spans/s), refused M," line (the
# sink's comes first); the server's counters since its start are on spanprof's lines only.
out=/tmp/spanprof-e2e-generator.out
read -r accepted_per_s refused_in_run < <(awk '/^  accepted / { rate = $4; refused = $7 }
  END { sub(/\(/, "", rate); sub(/,/, "", refused); print rate, refused }' "$out")
since_start() { grep -o "$1=[0-9]*" "$out" | cut -d= -f2; }
python3 bench/gc-allocation.py "$gc_log" "$(since_start spanprof_received_spans_total)" \
    "$(since_start spanprof_refused_spans_total)" "$accepted_per_s" "$refused_in_run" 60
