#!/bin/bash
# Where the machine's CPU goes in the steady state, by process and by spanprof's thread groups: the
# decode-only sink as next hop, spanprof, and the load generator flat out; CPU time read from
# /proc over a 40 s window after the warm-up (WARMUP seconds, default 30; 150 reaches the steady
# state of a 512 MB span store). Run from the repository root after
# `mvn -B -q install -DskipTests`. spanprof's JVM options besides the heap in SPANPROF_JAVA_OPTS
# (default: the collector its manifests choose).
set -euo pipefail
warmup=${WARMUP:-30}
jar=bench/target/benchmarks.jar
. bench/spanprof-and-sink.sh
# shellcheck disable=SC2086
start_spanprof_and_sink "" ${SPANPROF_JAVA_OPTS:--XX:+UseParallelGC}
java -cp "$jar" dev.spanprof.bench.LoadGenerator --target=localhost:4317 --streams=4 \
    --duration=60s --warmup="${warmup}s" > /tmp/spanprof-generator.out 2>&1 &
generator=$!

# One line per process, "<process> =process <utime+stime ticks>", whose ticks include its exited
# threads' (a thread that ends between the two reads is in no group); then one per spanprof
# thread, "<process> <thread name> <ticks>", for its thread groups.
snapshot() {
  for pid in "$service" "$sink" "$generator"; do
    echo "$pid =process $(awk '{print $14 + $15}' /proc/"$pid"/stat)"
  done
  for task in /proc/"$service"/task/*; do
    name=$(tr ' ' _ < "$task/comm" 2>/dev/null) || continue
    ticks=$(awk '{print $14 + $15}' "$task/stat" 2>/dev/null) || continue
    echo "$service $name $ticks"
  done
  head -1 /proc/stat | awk '{s = 0; for (i = 2; i <= NF; i++) s += $i; print "machine all " s}'
}
sleep $((warmup + 3)) && snapshot > /tmp/spanprof-cpu.0
sleep 40 && snapshot > /tmp/spanprof-cpu.1
wait "$generator"
cat /tmp/spanprof-generator.out
python3 - "$service" "$sink" "$generator" <<'PY'
import collections, re, sys
service, sink, generator = sys.argv[1:]
names = {service: 'spanprof', sink: 'sink', generator: 'generator'}
def load(path):
    ticks = collections.Counter()
    for line in open(path):
        pid, name, value = line.split()
        ticks[(pid, re.sub(r'[-#]?\d+$', '', name))] += int(value)
    return ticks
before, after = load('/tmp/spanprof-cpu.0'), load('/tmp/spanprof-cpu.1')
used = {key: after[key] - before.get(key, 0) for key in after}
machine = used.pop(('machine', 'all'))
groups = sorted(((v, k[1]) for k, v in used.items() if k[0] == service and k[1] != '=process'),
                reverse=True)
for pid in (service, sink, generator):
    print('%-9s %5.1f %% of the machine' % (names[pid], 100 * used[(pid, '=process')] / machine))
    if pid == service:
        for value, name in groups[:12]:
            print('    %5.1f %%  %s' % (100 * value / machine, name))
print('the rest  %5.1f %% (idle, other processes)'
      % (100 - 100 * sum(used[(pid, '=process')] for pid in names) / machine))
PY
