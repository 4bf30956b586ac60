#!/usr/bin/env bash
# Two builds of one JMH benchmark, run in alternation, each run reported as the median of its
# measurement iterations.
#
# usage: bench/ab.sh BASE_JAR NEW_JAR PAIRS BENCHMARK [more JMH arguments]
#   e.g. bench/ab.sh /tmp/base/bench/target/benchmarks.jar bench/target/benchmarks.jar 3 \
#          PipelineBenchmark
#
# Why medians, and why alternation: on this shared 2-core machine a run's mean moves by ±100 ns
# with what else runs (the distributions' window advance every 10 s makes one iteration in
# twelve slower), and the machine itself drifts over minutes. The median of twelve
# iterations ignores the odd slow one; alternating runs spreads the drift over both builds.
set -euo pipefail
if [ $# -lt 4 ]; then
  sed -n '5,7p' "$0" >&2
  exit 2
fi
base=$1 new=$2 pairs=$3 benchmark=$4
shift 4

# The middle of the numbers on stdin, one per line; fails on none.
middle() {
  sort -n | awk '{ v[NR] = $1 } END {
    if (NR == 0) { print "no result" > "/dev/stderr"; exit 1 }
    printf "%.0f\n", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

median() {
  java -jar "$1" "$benchmark" -f 1 -wi 6 -i 12 -w 1s -r 1s "${@:2}" 2>&1 \
    | awk '/^Iteration .*\/op$/ { print $3 }' | middle
}

# Besides each pair, the median of each build's runs and in how many pairs the new build was
# faster: on a machine whose runs spread wider than the change, one pair says nothing, and a
# difference that holds in most pairs says more than one in the means.
base_runs=() new_runs=() faster=0
for pair in $(seq "$pairs"); do
  b=$(median "$base" "$@")
  n=$(median "$new" "$@")
  echo "pair $pair: base $b  new $n"
  base_runs+=("$b") new_runs+=("$n")
  if [ "$n" -lt "$b" ]; then faster=$((faster + 1)); fi
done
echo "median of $pairs runs: base $(printf '%s\n' "${base_runs[@]}" | middle)  new $(printf '%s\n' "${new_runs[@]}" | middle);" \
  "new faster in $faster of $pairs pairs"
