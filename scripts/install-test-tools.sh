#!/usr/bin/env bash
# Installs what the tests need beyond Java 17 and Maven, from Debian's packages: the Prometheus
# Python client, whose text and OpenMetrics parsers check spanprof's /metrics output
# (MetricsExpositionTest), and openssl, which makes the self-signed certificate of the TLS
# forwarding test. Does nothing when they are already there.
set -euo pipefail
if /usr/bin/python3 -c 'import prometheus_client.openmetrics.parser' 2>/dev/null \
    && command -v openssl >/dev/null; then
  exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi
$sudo apt-get update -qq
$sudo apt-get install -y -qq python3-prometheus-client openssl
