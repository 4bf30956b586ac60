# Sourced by the scripts that load spanprof with its next hop: starts the decode-only sink on
# port 4320 (with NEXT_HOP=undecoded, one that drops each request unparsed) and spanprof
# forwarding to it, both run through PIN (a command prefix such as "taskset -c 0", or empty),
# spanprof with the JVM options given after it and a heap of $spanprof_heap_mb, from
# $SPANPROF_JAR (default: this checkout's build). Sets $sink and $service, stops both when the
# script exits (and waits for them), and returns once spanprof is ready, having said which gzip it
# forwards through.
spanprof_heap_mb=1536
start_spanprof_and_sink() {
  local pin=$1 sink_flags
  shift
  case ${NEXT_HOP:-decoding} in
    decoding) sink_flags= ;;
    undecoded) sink_flags=--undecoded ;;
    *) echo "NEXT_HOP is decoding (the default) or undecoded, not $NEXT_HOP" >&2; exit 2 ;;
  esac
  # shellcheck disable=SC2086
  $pin java -cp bench/target/benchmarks.jar dev.spanprof.bench.DecodeOnlySink 4320 $sink_flags \
      > /tmp/spanprof-sink.log 2>&1 &
  sink=$!
  # shellcheck disable=SC2086
  $pin java -Xmx"$spanprof_heap_mb"m "$@" -Dspanprof.export.endpoint=http://localhost:4320 \
      -jar "${SPANPROF_JAR:-service/target/spanprof-all.jar}" > /tmp/spanprof-service.log 2>&1 &
  service=$!
  # Waits for both to end: a script run right after this one would otherwise find spanprof,
  # still shutting down, on its ports ("Address already in use").
  trap 'kill $service $sink 2>/dev/null || true; wait $service $sink 2>/dev/null || true' EXIT
  until curl -sf localhost:9464/health/readiness > /dev/null; do
    kill -0 "$service" 2> /dev/null || { echo "spanprof did not start: /tmp/spanprof-service.log" >&2; exit 1; }
    sleep 0.3
  done
  # Which gzip spanprof forwards through: without ISA-L (its headers missing when the service
  # was built) the forwarding costs several times more, and so does the run
  # (ExportRequestBenchmark.streamedIntoZlib against streamedIntoGzip).
  grep -ah 'Forwarding gzip' /tmp/spanprof-service.log | sed 's/.* - /spanprof: /' >&2 || true
}
