#!/bin/bash
# spanprof as the sidecar overlay runs it, measured by bench/fixed-rate.sh: its configuration
# file, its JVM options and MALLOC_ARENA_MAX, read from the overlay's manifest, on one processor
# as its CPU limit of one core makes the JVM see it; 100-span requests, idle, at 2 000 and at
# 10 000 spans/s (RATES), spanprof only. The sidecar's targets are in BENCHMARKS.md ("Sidecar").
# Run from the repository root after `mvn -B -q install -DskipTests` (and, for PyYAML,
# `bash scripts/install-test-tools.sh`).
set -euo pipefail
overlay=deploy/kubernetes/overlays/sidecar
# "<name>=<value>" for each environment variable of the manifest's spanprof container.
environment=$(python3 - "$overlay/spanprof-sidecar.yaml" <<'PY'
import sys, yaml
spec = yaml.safe_load(open(sys.argv[1]))["spec"]["template"]["spec"]
(spanprof,) = [c for c in spec["initContainers"] if c["name"] == "spanprof"]
for variable in spanprof["env"]:
    print("%s=%s" % (variable["name"], variable["value"]))
PY
)
value() { sed -n "s/^$1=//p" <<< "$environment"; }
options=$(value JAVA_TOOL_OPTIONS)
heap=$(grep -o -- '-Xmx[0-9]*m' <<< "$options" | tr -dc 0-9)
MALLOC_ARENA_MAX=$(value MALLOC_ARENA_MAX) RATES=${RATES:-idle 2000 10000} TARGETS=spanprof \
    SPANS_PER_REQUEST=${SPANS_PER_REQUEST:-100} SPANPROF_CONFIG=$overlay/spanprof.yml \
    HEAP_MB=$heap JAVA_OPTS="-XX:ActiveProcessorCount=1 ${options/-Xmx${heap}m/}" \
    bash bench/fixed-rate.sh
