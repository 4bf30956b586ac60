#!/bin/bash
# A next-hop outage under load: the decode-only sink as spanprof's next hop, the generator at
# RATE spans/s (20 000) for DURATION seconds (60); the sink is stopped DOWN_AT seconds in (15)
# and started again at UP_AT (45). Prints every 5 s what spanprof holds (buffer, analysis and
# forwarding queues), its heap after a forced collection at the outage's end, how soon after the
# sink's return it forwarded again, and at the end every span's fate: received = exported +
# failed (by reason) + still held, and what was refused to the sender (who keeps and retries it).
# Run from the repository root after `mvn -B -q install -DskipTests`; spanprof's JVM options
# besides the heap in SPANPROF_JAVA_OPTS, its heap in HEAP_MB (512), another build in
# SPANPROF_JAR.
set -euo pipefail
rate=${RATE:-20000}
duration=${DURATION:-60}
down_at=${DOWN_AT:-15}
up_at=${UP_AT:-45}
. bench/spanprof-and-sink.sh
spanprof_heap_mb=${HEAP_MB:-512}
# shellcheck disable=SC2086
start_spanprof_and_sink "" ${SPANPROF_JAVA_OPTS:--XX:+UseParallelGC -XX:+ExitOnOutOfMemoryError}

metric() {
  curl -s localhost:9464/metrics | awk -v m="$1" '$1 == m || index($1, m "{") == 1 {s += $2} END {printf "%.0f", s}'
}
held() {
  echo "buffered=$(metric spanprof_buffered_spans) queued=$(metric spanprof_queued_spans)" \
    "export_queue=$(metric spanprof_export_queue_spans) exported=$(metric spanprof_exported_spans_total)"
}

java -cp bench/target/benchmarks.jar dev.spanprof.bench.LoadGenerator --target=localhost:4317 \
    --streams=4 --rate="$rate" --spans-per-request=100 --duration="${duration}s" \
    > /tmp/spanprof-generator.out 2>&1 &
generator=$!
start=$(date +%s)
elapsed() { echo $(($(date +%s) - start)); }
sink_down=false
resumed=""
while kill -0 "$generator" 2> /dev/null; do
  sleep 1
  t=$(elapsed)
  if [ "$t" -ge "$down_at" ] && [ "$t" -lt "$up_at" ] && ! $sink_down; then
    kill "$sink"; wait "$sink" 2> /dev/null || true
    sink_down=true
    echo "t=${t}s next hop stopped"
  fi
  if [ "$t" -ge "$up_at" ] && $sink_down; then
    jcmd "$service" GC.run > /dev/null
    heap=$(jcmd "$service" GC.heap_info | awk '$1 ~ /(Gen|heap)$/ {
        for (i = 1; i < NF; i++) if ($i == "used") {sub("K", "", $(i + 1)); s += $(i + 1)}}
        END {printf "%.0f MB", s / 1024}')
    echo "t=${t}s heap after a full collection, the next hop down $((t - down_at)) s: $heap ($(held))"
    java -cp bench/target/benchmarks.jar dev.spanprof.bench.DecodeOnlySink 4320 \
        > /tmp/spanprof-sink.log 2>&1 &
    sink=$!
    sink_down=false
    up_time=$(date +%s%N)
    exported_at_up=$(metric spanprof_exported_spans_total)
    echo "t=${t}s next hop started"
  fi
  if [ -n "${up_time:-}" ] && [ -z "$resumed" ] \
      && [ "$(metric spanprof_exported_spans_total)" -gt "$exported_at_up" ]; then
    resumed=$(( ($(date +%s%N) - up_time) / 1000000 ))
    echo "t=${t}s forwarding again ${resumed} ms after the next hop started (within 1 s polls)"
  fi
  if [ $((t % 5)) -eq 0 ]; then
    echo "t=${t}s $(held)"
  fi
done
wait "$generator" || true
# The sweeps and forwarding drain what is held: wait until nothing is.
for _ in $(seq 1 120); do
  [ "$(metric spanprof_buffered_spans)" = 0 ] && [ "$(metric spanprof_queued_spans)" = 0 ] \
    && [ "$(metric spanprof_export_queue_spans)" = 0 ] && break
  sleep 1
done
cat /tmp/spanprof-generator.out
received=$(metric spanprof_received_spans_total)
exported=$(metric spanprof_exported_spans_total)
echo "received $received = exported $exported + failed $(metric spanprof_export_failed_spans_total) + held: $(held)"
curl -s localhost:9464/metrics | grep -E '^spanprof_(export_failed_spans_total|refused_spans_total)\{' | grep -v ' 0.0$' || true
echo "refused to the sender: $(metric spanprof_refused_spans_total) spans"
