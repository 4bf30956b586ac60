#!/bin/bash
# A trace of a million spans (one trace id, 100 requests of 10 000), sent to spanprof forwarding
# to the decode-only sink, as the hostile run did: every second, what spanprof holds
# (buffer, analysis queue, forwarding queue) and its heap; at the end, every span's fate and the
# largest of each. Run from the repository root after `mvn -B -q install -DskipTests`; the heap
# in HEAP_MB (512), the requests and their size in REQUESTS (100) and SPANS_PER_REQUEST (10000).
set -euo pipefail
. bench/spanprof-and-sink.sh
spanprof_heap_mb=${HEAP_MB:-512}
start_spanprof_and_sink "" -XX:+UseParallelGC -XX:+ExitOnOutOfMemoryError

metric() {
  curl -s localhost:9464/metrics | awk -v m="$1" '$1 == m || index($1, m "{") == 1 {s += $2} END {printf "%.0f", s}'
}
java -cp bench/target/benchmarks.jar dev.spanprof.bench.HugeTrace localhost:4317 \
    "${REQUESTS:-100}" "${SPANS_PER_REQUEST:-10000}" > /tmp/spanprof-huge.out 2>&1 &
sender=$!
max_buffered=0; max_queued=0; max_export=0
sample() {
  b=$(metric spanprof_buffered_spans); q=$(metric spanprof_queued_spans); e=$(metric spanprof_export_queue_spans)
  [ "$b" -gt "$max_buffered" ] && max_buffered=$b
  [ "$q" -gt "$max_queued" ] && max_queued=$q
  [ "$e" -gt "$max_export" ] && max_export=$e
  echo "buffered=$b queued=$q export_queue=$e heap_used=$(($(metric jvm_memory_used_bytes) >> 20))MB"
}
while kill -0 "$sender" 2> /dev/null; do sleep 1; sample; done
wait "$sender"
for _ in $(seq 1 60); do
  [ "$(metric spanprof_buffered_spans)" = 0 ] && [ "$(metric spanprof_queued_spans)" = 0 ] \
    && [ "$(metric spanprof_export_queue_spans)" = 0 ] && break
  sleep 1; sample
done
cat /tmp/spanprof-huge.out
echo "largest: buffered $max_buffered, analysis queue $max_queued (bound $(grep -o '[0-9]* queued for analysis' /tmp/spanprof-service.log | head -1 | cut -d' ' -f1)), forwarding queue $max_export"
echo "received $(metric spanprof_received_spans_total) = exported $(metric spanprof_exported_spans_total)" \
  "+ failed $(metric spanprof_export_failed_spans_total) + held $(($(metric spanprof_buffered_spans) + $(metric spanprof_queued_spans) + $(metric spanprof_export_queue_spans)))"
echo "refused: $(metric spanprof_refused_spans_total); traces by completion:"
curl -s localhost:9464/metrics | grep -E '^spanprof_traces_total\{' | grep -v ' 0.0$'
grep -c OutOfMemoryError /tmp/spanprof-service.log | sed 's/^/OutOfMemoryErrors in the log: /' || true
