#!/bin/bash
# spanprof under overload: spanprof and its next hop (the decode-only sink) share one core, the
# load generator sends flat out from the other, so more is offered than spanprof can take. After
# a warm-up (WARMUP seconds, default 90), a 60 s run from STREAMS concurrent streams (default 16:
# with fewer, the streams wait on spanprof's replies more than on their core). Prints how many
# times spanprof's intake was offered, what was refused and why, whether spanprof is still
# ready, and its heap against its bound (-Xmx): the largest heap after a collection and the
# most it committed, from its GC log. Run from the repository root after
# `mvn -B -q install -DskipTests`; needs taskset. HEAP_MB sets spanprof's heap (1536), and
# SPANPROF_JAVA_OPTS its options besides (the Kubernetes base's 512 MB span store).
set -euo pipefail
warmup=${WARMUP:-90}
jar=bench/target/benchmarks.jar
gc_log=/tmp/spanprof-overload-gc.log
. bench/spanprof-and-sink.sh
spanprof_heap_mb=${HEAP_MB:-$spanprof_heap_mb}
# shellcheck disable=SC2086
start_spanprof_and_sink "taskset -c 0" -XX:+UseParallelGC -XX:+ExitOnOutOfMemoryError \
    ${SPANPROF_JAVA_OPTS:--Dspanprof.ingest.span-store-size=512MB} -Xlog:gc:file="$gc_log"
taskset -c 1 java -cp "$jar" dev.spanprof.bench.LoadGenerator --target=localhost:4317 --streams="${STREAMS:-16}" \
    --duration=60s --warmup="${warmup}s" | tee /tmp/spanprof-generator.out
echo "readiness after the run: HTTP $(curl -s -o /dev/null -w '%{http_code}' localhost:9464/health/readiness)"
curl -s localhost:9464/metrics \
    | grep -E '^spanprof_(refused_spans_total|rejected_requests_total|analysis_failed_spans_total|buffered_spans|span_store_)' \
    | grep -v ' 0\.0$' || true
# "accepted N spans (...), refused M": offered is both, against what was taken.
awk '/^  accepted / { accepted = $2; refused = $7; sub(",", "", refused) }
  END { printf "offered %.2f times what spanprof took\n", (accepted + refused) / accepted }' \
    /tmp/spanprof-generator.out
# ParallelGC's lines end "<before>M-><after>M(<committed>M) <pause>ms".
grep -oE '[0-9]+M->[0-9]+M\([0-9]+M\)' "$gc_log" | awk -F'[->()M]+' -v bound="$spanprof_heap_mb" '
  { if ($2 > after) after = $2; if ($3 > committed) committed = $3 }
  END { printf "heap: at most %d MB after a collection, %d MB committed, of %d MB\n", after, committed, bound }'
