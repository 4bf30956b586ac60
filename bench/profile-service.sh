#!/bin/bash
# A CPU profile of spanprof (the Kubernetes base's collector and heap, the default span store) under
# the load generator, four streams flat out (or at RATE spans/s in SPANS_PER_REQUEST-span requests,
# as bench/fixed-rate.sh offers them), with the decode-only sink as next hop. async-profiler
# (tools.profiler:async-profiler:3.0 from Maven Central, unpacked into bench/target on first use) is
# attached PROFILE_AT seconds into the load (default 50) for PROFILE_FOR seconds (default 30):
# itimer samples every millisecond, one stack per line with its thread's name first, written to $1
# (default /tmp/spanprof-profile.collapsed). Inlined frames are placed (-XX:+DebugNonSafepoints).
# Run from the repository root after `mvn -B -q install -DskipTests`; SPANPROF_JAR and NEXT_HOP as
# for bench/e2e.sh.
set -euo pipefail
output=${1:-/tmp/spanprof-profile.collapsed}
at=${PROFILE_AT:-50}
for_seconds=${PROFILE_FOR:-30}
lib=bench/target/async-profiler/linux-x64/libasyncProfiler.so
if [ ! -f "$lib" ]; then
  mvn -B -q dependency:copy -Dartifact=tools.profiler:async-profiler:3.0 \
      -DoutputDirectory=bench/target/async-profiler
  (cd bench/target/async-profiler && jar xf async-profiler-3.0.jar linux-x64)
fi
lib=$(realpath "$lib")
. bench/spanprof-and-sink.sh
start_spanprof_and_sink "" -XX:+UseParallelGC -Xms"$spanprof_heap_mb"m \
    -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints
java -cp bench/target/benchmarks.jar dev.spanprof.bench.LoadGenerator --target=localhost:4317 \
    --streams=4 --rate="${RATE:-0}" --spans-per-request="${SPANS_PER_REQUEST:-512}" \
    --duration=$((at + for_seconds + 10))s --warmup=0s > /tmp/spanprof-generator.out 2>&1 &
generator=$!
# jcmd splits its arguments at '=' unless they are quoted for it: the options go in as one string.
sleep "$at"
jcmd "$service" JVMTI.agent_load "$lib" "\"start,event=itimer,interval=1ms,threads\"" > /dev/null
sleep "$for_seconds"
jcmd "$service" JVMTI.agent_load "$lib" "\"stop,collapsed,file=$output\"" > /dev/null
wait "$generator"
cat /tmp/spanprof-generator.out
echo "profile: $output"
