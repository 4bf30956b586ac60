#!/bin/bash
# Where the machine's CPU goes in the steady state, by process and by spanprof's thread groups,
# also as µs of one core per span spanprof accepted: the
# decode-only sink as next hop, spanprof, and the load generator flat out; CPU time read from
# /proc over a 40 s window after the warm-up (WARMUP seconds, default 30; 150 reaches the steady
# state of the span store). Run from the repository root after
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
# spanprof's accepted spans/s over the run, from the generator's report, and the machine's cores:
# a share of the machine per span accepted is the cost a change is judged by (BENCHMARKS.md).
rate=$(sed -n 's/.*accepted [0-9]* spans (\([0-9]*\) spans\/s).*/\1/p' /tmp/spanprof-generator.out | tail -1)
python3 - "$service" "$sink" "$generator" "${rate:-0}" "$(nproc)" <<'PY'
import collections, re, sys
service, sink, generator, rate, cores = sys.argv[1:]
rate, cores = int(rate), int(cores)

def per_span(share):
    """Microseconds of one core per accepted span, for a share (percent) of the machine."""
    return '  %5.2f µs per accepted span' % (share / 100 * cores * 1e6 / rate) if rate else ''

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
    share = 100 * used[(pid, '=process')] / machine
    print('%-9s %5.1f %% of the machine%s' % (names[pid], share, per_span(share)))
    if pid == service:
        for value, name in groups[:12]:
            share = 100 * value / machine
            print('    %5.1f %%  %-15s%s' % (share, name, per_span(share)))
        # Threads that ended within the window count in the process, in no group (a pool's
        # threads come and go: before spanprof.ingest.grpc-threads, the request walk's, mostly).
        share = 100 * (used[(pid, '=process')] - sum(value for value, _ in groups)) / machine
        print('    %5.1f %%  %-15s%s' % (share, '(ended threads)', per_span(share)))
print('the rest  %5.1f %% (idle, other processes)'
      % (100 - 100 * sum(used[(pid, '=process')] for pid in names) / machine))
PY
