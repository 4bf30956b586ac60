#!/bin/bash
# spanprof's CPU per span and resident memory against the decode-only sink's at the same fixed
# offered rates, each process loaded alone in a JVM of its own: the headline comparison
# (BENCHMARKS.md, Targets). For each rate, spanprof (forwarding to a decode-only next hop whose CPU
# is not counted) and then the sink, each:
#   1. started, and loaded by the generator at the rate (4 streams of 512-span requests);
#   2. warmed up until the JIT has settled: fewer than SETTLED_COMPILATIONS (20) methods compiled
#      in the last 30 s (jstat -compiler), after at least MIN_WARMUP (60) s, for at most
#      MAX_WARMUP (900) s; the report says which ended the warm-up (spanprof settles in 330 to
#      530 s at these rates, the sink in 80 to 450 s);
#   3. measured over WINDOW (60) s: CPU as utime + stime from /proc/PID/stat (and by thread
#      group, the busiest ten), spans as the generator's count of accepted spans, resident memory
#      as VmRSS at the window's end (and the peak, VmHWM); for spanprof, the spans it refused.
# Then a table: per rate, µs of one core per span and the share of a core for each, their ratios,
# and each process's resident memory; and the same µs per span without the JIT compilers'
# threads, with their ratio. Where the compile rate has not settled, what the compilers take in
# the window varies from run to run by more than the differences measured (at 2 000 spans/s,
# 20 to 37 ticks of spanprof's minute in runs of one build). Without them the figure is still an
# upper bound of the settled one: code not yet optimised runs slower.
#
# RATES: spans/s, 0 for flat out, "idle" for no load at all (default "2000 10000 50000 0").
# TARGETS (default "spanprof sink"; "forwarder" adds the pass-through forwarder, which receives
# as the sink does and forwards each request as spanprof forwards, to a decode-only next hop of
# its own: receiving and forwarding with none of spanprof's own work; "bytes-forwarder" the same
# pass-through forwarding the bytes it received rather than encoding the request again).
# HEAP_MB (1536: -Xmx) and JAVA_OPTS (the Kubernetes base's collector, and its heap at its size
# from the start: "-XX:+UseParallelGC -Xms<HEAP_MB>m") apply to every measured JVM;
# SPANPROF_CONFIG: a configuration file for spanprof (MICRONAUT_CONFIG_FILES), e.g.
# deploy/kubernetes/overlays/sidecar/spanprof.yml; SPANPROF_JAR: another build.
# SPANS_PER_REQUEST (512), STREAMS (4). Run from the repository root after
# `mvn -B -q install -DskipTests`.
set -euo pipefail
rates=${RATES:-2000 10000 50000 0}
targets=${TARGETS:-spanprof sink}
heap_mb=${HEAP_MB:-1536}
java_opts=${JAVA_OPTS:--XX:+UseParallelGC -Xms${heap_mb}m}
window=${WINDOW:-60}
min_warmup=${MIN_WARMUP:-60} max_warmup=${MAX_WARMUP:-900}
settled=${SETTLED_COMPILATIONS:-20}
jar=bench/target/benchmarks.jar
results=$(mktemp)
pids=()
# Stops what runs in the reverse order of its start, each before the next: the generator, then
# spanprof, which forwards what it holds to its next hop before it exits, then the next hop.
stop_all() {
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill "${pids[i]}" 2> /dev/null || true
    wait "${pids[i]}" 2> /dev/null || true
  done
  pids=()
}
trap 'stop_all; rm -f "$results"' EXIT

ticks() { awk '{print $14 + $15}' /proc/"$1"/stat; }
# "<thread name> <ticks>" per live thread, names without their numbers (a pool's threads summed).
thread_ticks() {
  for task in /proc/"$1"/task/*; do
    echo "$(tr ' ' _ < "$task/comm" 2>/dev/null | sed 's/[-#]\?[0-9]*$//') $(awk '{print $14 + $15}' "$task/stat" 2>/dev/null)"
  done | awk 'NF == 2 {t[$1] += $2} END {for (n in t) print n, t[n]}'
}
compiled() { jstat -compiler "$1" | awk 'NR == 2 {print $1}'; }
status_mb() { awk -v key="$2:" '$1 == key {printf "%.0f", $2 / 1024}' /proc/"$1"/status; }
accepted() { awk '$1 == "progress" {n = $3} END {print n + 0}' /tmp/spanprof-fixed-rate.out; }

# Waits until the log $2 holds $3, failing if process $1 ends first.
await_log() {
  until grep -q "$3" "$2"; do
    kill -0 "$1" 2> /dev/null || { echo "it did not start: $2" >&2; exit 1; }
    sleep 0.3
  done
}

# Starts the decode-only next hop on 4320, whose CPU does not count.
start_next_hop() {
  java -cp "$jar" dev.spanprof.bench.DecodeOnlySink 4320 > /tmp/spanprof-sink.log 2>&1 &
  pids+=($!)
  await_log $! /tmp/spanprof-sink.log 'sink on port'
}

# Starts TARGET, sets $measured to the process whose CPU counts and $port to where load goes.
start() {
  local target=$1 config=()
  if [ -n "${SPANPROF_CONFIG:-}" ]; then
    config=(env MICRONAUT_CONFIG_FILES="$SPANPROF_CONFIG")
  fi
  case $target in
    spanprof)
      start_next_hop
      # shellcheck disable=SC2086
      "${config[@]}" java -Xmx"$heap_mb"m $java_opts -Dspanprof.export.endpoint=http://localhost:4320 \
          -jar "${SPANPROF_JAR:-service/target/spanprof-all.jar}" > /tmp/spanprof-service.log 2>&1 &
      measured=$!
      port=4317
      until curl -sf localhost:9464/health/readiness > /dev/null; do
        kill -0 "$measured" 2> /dev/null || { echo "spanprof did not start: /tmp/spanprof-service.log" >&2; exit 1; }
        sleep 0.3
      done
      # Which gzip it forwards through, as bench/spanprof-and-sink.sh says: the JDK's zlib,
      # where ISA-L's headers were missing at build time, costs about a microsecond more a span.
      grep -ah 'Forwarding gzip' /tmp/spanprof-service.log | sed 's/.* - /spanprof: /' || true
      ;;
    sink)
      # shellcheck disable=SC2086
      java -Xmx"$heap_mb"m $java_opts -cp "$jar" dev.spanprof.bench.DecodeOnlySink 4321 \
          > /tmp/spanprof-sink.log 2>&1 &
      measured=$!
      port=4321
      await_log "$measured" /tmp/spanprof-sink.log 'sink on port'
      ;;
    forwarder|bytes-forwarder)
      start_next_hop
      local forwarded=reencoded
      [ "$target" = forwarder ] || forwarded=received-bytes
      # shellcheck disable=SC2086
      java -Xmx"$heap_mb"m $java_opts -cp "$jar" dev.spanprof.export.PassThroughForwarder \
          4322 4320 "$forwarded" > /tmp/spanprof-forwarder.log 2>&1 &
      measured=$!
      port=4322
      await_log "$measured" /tmp/spanprof-forwarder.log 'pass-through on port'
      ;;
    *) echo "TARGETS holds spanprof, sink, forwarder, bytes-forwarder, not $target" >&2; exit 2 ;;
  esac
  pids+=("$measured")
}

for rate in $rates; do
  for target in $targets; do
    start "$target"
    : > /tmp/spanprof-fixed-rate.out
    if [ "$rate" != idle ]; then
      java -cp "$jar" dev.spanprof.bench.LoadGenerator --target=localhost:"$port" \
          --streams="${STREAMS:-4}" --spans-per-request="${SPANS_PER_REQUEST:-512}" \
          --rate="$rate" --duration=$((max_warmup + window + 30))s --progress \
          > /tmp/spanprof-fixed-rate.out 2>&1 &
      pids+=($!)
    fi
    # The warm-up: one reading of the compile count every 10 s, settled when the reading 30 s
    # back is fewer than $settled behind.
    counts=() elapsed=0 ended="the limit of ${max_warmup} s"
    while [ "$elapsed" -lt "$max_warmup" ]; do
      sleep 10
      elapsed=$((elapsed + 10))
      counts+=("$(compiled "$measured")")
      n=${#counts[@]}
      if [ "$elapsed" -ge "$min_warmup" ] && [ "$n" -gt 3 ] \
          && [ $((counts[n - 1] - counts[n - 4])) -lt "$settled" ]; then
        ended="$((counts[n - 1] - counts[n - 4])) compilations in 30 s"
        break
      fi
    done
    threads0=$(thread_ticks "$measured")
    cpu0=$(ticks "$measured") spans0=$(accepted) from=$(date +%s.%N)
    sleep "$window"
    cpu1=$(ticks "$measured") spans1=$(accepted) to=$(date +%s.%N)
    threads1=$(thread_ticks "$measured")
    # "<ticks> <thread group>" over the window, busiest first.
    busy=$(join -a 2 <(sort <<< "$threads0") <(sort <<< "$threads1") \
        | awk 'NF == 3 {print $3 - $2, $1} NF == 2 {print $2, $1}' | sort -rn)
    jit=$(awk '$2 ~ /^C[12]_CompilerThre/ {j += $1} END {print j + 0}' <<< "$busy")
    rss=$(status_mb "$measured" VmRSS) hwm=$(status_mb "$measured" VmHWM)
    compilations=$(($(compiled "$measured") - counts[${#counts[@]} - 1]))
    echo "$rate $target $((cpu1 - cpu0)) $((spans1 - spans0)) $from $to $rss $hwm $jit" >> "$results"
    echo "$target at $rate spans/s (0: flat out): warmed up ${elapsed} s (${ended}), then" \
        "$((spans1 - spans0)) spans and $((cpu1 - cpu0)) ticks of CPU in ${window} s," \
        "${compilations} compilations; RSS ${rss} MiB (peak ${hwm} MiB)" >&2
    # Where the CPU went, by thread group: the ten busiest, in ticks over the window.
    head -10 <<< "$busy" | awk '{printf "    %5d ticks  %s\n", $1, $2}' >&2
    if [ "$target" = spanprof ]; then
      # The generator counts the spans taken; what spanprof refused since it started, by reason
      # (a refusal is retried, and would go unseen), and its last errors.
      curl -s localhost:9464/metrics | awk '$1 ~ /^spanprof_refused_spans_total/ && $2 > 0 {
          r = r " " $1 " " $2} END {print "    refused since start:" (r == "" ? " none" : r)}' >&2
      grep -h 'ERROR' /tmp/spanprof-service.log | tail -3 >&2 || true
    fi
    stop_all
  done
done

python3 - "$results" "$(getconf CLK_TCK)" <<'PY'
import collections, sys
path, tick = sys.argv[1], int(sys.argv[2])
rows = collections.defaultdict(dict)
for line in open(path):
    rate, target, ticks, spans, start, end, rss, hwm, jit = line.split()
    seconds, spans = float(end) - float(start), int(spans)
    per_span = lambda t: 1e6 * int(t) / tick / spans if spans else None
    rows[rate][target] = (int(ticks) / tick / seconds, spans / seconds, per_span(ticks),
                          per_span(int(ticks) - int(jit)), rss, hwm)
print('%-10s %-15s %11s %9s %11s %15s %15s' % ('rate', 'process', 'spans/s', 'of a core',
                                              'µs per span', 'RSS (peak) MiB', 'without JIT'))
for rate, targets in rows.items():
    for target, (core, per_second, per_span, settled, rss, hwm) in targets.items():
        print('%-10s %-15s %11.0f %8.2f %% %11s %15s %15s' % (
            {'0': 'flat out'}.get(rate, rate), target, per_second, 100 * core,
            '%.2f' % per_span if per_span else '-', '%s (%s)' % (rss, hwm),
            '%.2f' % settled if settled else '-'))
    for measured, reference, target in (('spanprof', 'sink', ' (target ≤ 1.67)'),
                                        ('spanprof', 'forwarder', ''), ('forwarder', 'sink', ''),
                                        ('spanprof', 'bytes-forwarder', ''),
                                        ('bytes-forwarder', 'sink', '')):
        both = [targets.get(t) for t in (measured, reference)]
        if all(both) and all(b[2] for b in both):
            print('%-10s %s / %s: %.2f per span%s; without JIT %.2f' % (
                '', measured, reference, both[0][2] / both[1][2], target,
                both[0][3] / both[1][3]))
PY
