#!/bin/bash
# A fleet query's latency at 3 and at 10 replicas (REPLICAS), each a spanprof process with a
# 160 MB heap on this machine, peers of each other (dev.spanprof.bench.FleetLatency; docs/fleet.md).
# Run from the repository root after `mvn -B -q install -DskipTests`. TRACES, ROOTS, OPERATIONS,
# REPEATS as FleetLatency takes them.
set -euo pipefail
for replicas in ${REPLICAS:-3 10}; do
  java -cp bench/target/benchmarks.jar dev.spanprof.bench.FleetLatency "$replicas" \
      "${TRACES:-20000}" "${ROOTS:-20}" "${OPERATIONS:-50}" "${REPEATS:-30}"
done
