#!/usr/bin/env bash
# Installs what the tests need beyond Java 17 and Maven, from Debian's packages, when missing:
# - the Prometheus Python client, whose text and OpenMetrics parsers check spanprof's /metrics
#   output (MetricsExpositionTest), and PyYAML, which reads rendered manifests (deploy/test);
# - openssl, which makes the self-signed certificate of the TLS forwarding test;
# - Prometheus and promtool, for deploy/test/prometheus_it.py;
# - kubectl (package kubernetes-client), whose `kubectl kustomize` renders deploy/kubernetes;
# - ISA-L's headers (libisal-dev) and gcc: with them the build makes the forwarding's gzip
#   library (service/pom.xml, profile isal), which IsalGzipTest then requires to load;
# - Chromium and its ChromeDriver, which the web UI's browser tests drive headless (UiBrowserTest).
set -euo pipefail
packages=()
/usr/bin/python3 -c 'import prometheus_client.openmetrics.parser' 2>/dev/null \
    || packages+=(python3-prometheus-client)
/usr/bin/python3 -c 'import yaml' 2>/dev/null || packages+=(python3-yaml)
command -v openssl >/dev/null || packages+=(openssl)
{ command -v prometheus >/dev/null && command -v promtool >/dev/null; } || packages+=(prometheus)
command -v kubectl >/dev/null || packages+=(kubernetes-client)
[ -f /usr/include/isa-l.h ] || packages+=(libisal-dev)
command -v gcc >/dev/null || packages+=(gcc libc6-dev)
{ [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; } || packages+=(chromium chromium-driver)
if [ ${#packages[@]} -eq 0 ]; then
  exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${packages[@]}"
