#!/bin/bash
# Where the machine's CPU goes when the load generator loads the decode-only sink alone, as its
# --compare reference run does: the sink's and the generator's CPU per span over a 40 s window
# after a 30 s warm-up, 4 streams flat out. With bench/cpu-split.sh's figures for spanprof's run,
# this is the budget the end-to-end ratio leaves spanprof (BENCHMARKS.md, Targets).
# Run from the repository root after `mvn -B -q install -DskipTests`.
set -euo pipefail
jar=bench/target/benchmarks.jar
java -cp "$jar" dev.spanprof.bench.DecodeOnlySink 4320 > /tmp/spanprof-sink.log 2>&1 &
sink=$!
trap 'kill $sink 2>/dev/null || true; wait $sink 2>/dev/null || true' EXIT
java -cp "$jar" dev.spanprof.bench.LoadGenerator --target=localhost:4320 --streams=4 \
    --duration=60s --warmup=30s > /tmp/spanprof-generator.out 2>&1 &
generator=$!

# "<sink ticks> <generator ticks> <machine ticks>": utime + stime of each process (its ended
# threads' included), and the machine's ticks summed over its cores.
snapshot() {
  echo "$(awk '{print $14 + $15}' /proc/"$sink"/stat)" \
      "$(awk '{print $14 + $15}' /proc/"$generator"/stat)" \
      "$(head -1 /proc/stat | awk '{s = 0; for (i = 2; i <= NF; i++) s += $i; print s}')"
}
sleep 33 && before=$(snapshot)
sleep 40 && after=$(snapshot)
wait "$generator"
# The generator's report names its target spanprof and finds no counters to scrape; the lines
# that hold for the sink:
grep -E '^  (accepted|export latency)' /tmp/spanprof-generator.out
rate=$(sed -n 's/.*accepted [0-9]* spans (\([0-9]*\) spans\/s).*/\1/p' /tmp/spanprof-generator.out | tail -1)
python3 - "$before" "$after" "${rate:-0}" "$(nproc)" <<'PY'
import sys
before, after = (list(map(int, s.split())) for s in sys.argv[1:3])
rate, cores = int(sys.argv[3]), int(sys.argv[4])
sink, generator, machine = (a - b for a, b in zip(after, before))
for name, ticks in (("sink", sink), ("generator", generator)):
    share = 100 * ticks / machine
    # µs of one core per span, as bench/cpu-split.sh gives them
    per_span = "  %5.2f µs per span" % (share / 100 * cores * 1e6 / rate) if rate else ""
    print("%-9s %5.1f %% of the machine%s" % (name, share, per_span))
print("the rest  %5.1f %% (idle, other processes)" % (100 * (machine - sink - generator) / machine))
PY
