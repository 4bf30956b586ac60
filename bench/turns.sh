#!/usr/bin/env bash
# Two builds of one benchmark in two JVMs that take turns on one core, a slice at a time
# (dev.spanprof.bench.TurnTakingRun says why), then new/base per turn.
#
# usage: bench/turns.sh BASE_JAR NEW_JAR BENCHMARK_CLASS [name=value ...] [benchmark=METHOD]
#   e.g. bench/turns.sh /tmp/base/bench/target/benchmarks.jar bench/target/benchmarks.jar \
#          dev.spanprof.bench.PipelineBenchmark distinctTraces=16
# SLICE_MS (200) and SLICES (300) per side; the first third is warm-up. CPU (1): the core both
# take turns on, so neither gets a core of its own the other never sees. BASE_JAVA_OPTS and
# NEW_JAVA_OPTS: JVM options of one side (one jar on both sides then compares two JVM settings).
# Two rounds, the builds' places swapped in the second: with one build on both sides, the side
# that goes second measured 0 to 5 % faster in six runs, so each round's ratio carries that bias,
# and the geometric mean of the two rounds' cancels it.
set -euo pipefail
if [ $# -lt 3 ]; then
  sed -n '5,7p' "$0" >&2
  exit 2
fi
base=$1 new=$2 benchmark=$3
shift 3
base_options=${BASE_JAVA_OPTS:-} new_options=${NEW_JAVA_OPTS:-}
slice_ms=${SLICE_MS:-200} slices=${SLICES:-300} cpu=${CPU:-1}

work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
mkfifo "$work/to-A" "$work/to-B"
on_core=()
if command -v taskset > /dev/null; then
  on_core=(taskset -c "$cpu")
fi
# Each side in the background as the JVM itself (exec), so that the trap stops it if the other
# fails, rather than leaving it waiting on a pipe.
side() { # BUILD (base or new) ROLE TO FROM [name=value ...]
  local jar=$base options=$base_options
  if [ "$1" = new ]; then jar=$new options=$new_options; fi
  # shellcheck disable=SC2086 # the options are words
  exec "${on_core[@]}" java $options -cp "$jar" dev.spanprof.bench.TurnTakingRun run "$2" "$3" \
    "$4" "$slice_ms" "$slices" "$work/$1" "$benchmark" "${@:5}" > "$work/$1.log" 2>&1
}
ratios=()
for round in 1 2; do
  if [ "$round" = 1 ]; then first=base second=new; else first=new second=base; fi
  side "$first" A "$work/to-B" "$work/to-A" "$@" &
  side "$second" B "$work/to-A" "$work/to-B" "$@" &
  if ! wait -n || ! wait -n; then
    tail -n 20 "$work"/*.log >&2
    exit 1
  fi
  line=$(java -cp "$new" dev.spanprof.bench.TurnTakingRun compare "$work/base" "$work/new" \
    $((slices / 3)))
  echo "round $round ($first first): $line"
  ratios+=("$(sed -E 's/.*per turn: median ([0-9.]+).*/\1/' <<< "$line")")
done
echo "new/base, both rounds: $(awk -v a="${ratios[0]}" -v b="${ratios[1]}" \
  'BEGIN { printf "%.3f\n", sqrt(a * b) }')"
