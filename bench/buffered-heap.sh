#!/bin/bash
# Heap per buffered span: spanprof holds every span it accepts (trace timeout and age of ten
# minutes: none completes, none is forwarded), and the heap after a full collection is read
# before and after a load of 200 000 spans (2 streams at 40 000 spans/s for 5 s). Prints the
# spans accepted, the heap used before and after, and the bytes per span held. Run from the
# repository root after `mvn -B -q install -DskipTests`; SPANPROF_JAR measures another build.
set -euo pipefail
jar=bench/target/benchmarks.jar
. bench/spanprof-and-sink.sh
start_spanprof_and_sink "" -XX:+UseParallelGC -Dspanprof.assembly.trace-timeout=10m \
    -Dspanprof.assembly.max-trace-age=10m -Dspanprof.pools.lateness=11m
# The used heap after a full collection, in bytes.
heap_after_gc() {
  jcmd "$service" GC.run > /dev/null
  jcmd "$service" GC.heap_info | awk '/Gen/ && /used/ { for (i = 1; i <= NF; i++) if ($i == "used") {
    v = $(i + 1); sub(/K,?$/, "", v); total += v * 1024 } } END { printf "%d\n", total }'
}
before=$(heap_after_gc)
java -cp "$jar" dev.spanprof.bench.LoadGenerator --target=localhost:4317 --streams=2 \
    --duration=5s --rate=40000 > /tmp/spanprof-heap-generator.out 2>&1
accepted=$(sed -n 's/.*accepted \([0-9]*\) spans.*/\1/p' /tmp/spanprof-heap-generator.out | tail -1)
after=$(heap_after_gc)
awk -v a="$accepted" -v b="$before" -v c="$after" 'BEGIN {
  printf "accepted %d spans; heap after GC %.1f MB before, %.1f MB after: %.0f B per span held\n",
    a, b / 1048576, c / 1048576, (c - b) / a }'
