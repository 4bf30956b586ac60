#!/usr/bin/env bash
# Tests of deploy/ with the real tools (after the build: the Prometheus test runs the service jar):
# the kustomizations rendered by kubectl and checked, the collector configurations, the image
# definition and the dashboard (test_deploy.py), then promtool and a real Prometheus scraping a
# running spanprof (prometheus_it.py). scripts/install-test-tools.sh installs the tools.
set -euo pipefail
cd "$(dirname "$0")/../.."
/usr/bin/python3 -m unittest discover -s deploy/test -p 'test_*.py' -v
/usr/bin/python3 deploy/test/prometheus_it.py
