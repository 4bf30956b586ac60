"""Prometheus against a running spanprof, for real.

1. promtool checks the shipped scrape configuration and rules, and runs the rules' unit tests.
2. spanprof starts from the built jar with the base ConfigMap's configuration (ports moved to
   free ones, the trace timeout and ranking refresh shortened), receives a golden trace over
   OTLP/HTTP, and promtool lints its /metrics output: no finding allowed.
3. Every spanprof metric the rules and the dashboard query is in what Prometheus scrapes.
4. A real Prometheus on loopback, with the shipped prometheus.yml pointed at that spanprof,
   scrapes it; its HTTP API must show the target up, spanprof_received_spans_total equal to the
   golden trace's span count, and spanprof_resource_time_seconds_total, in all and by state,
   equal to the golden resource times. The rules must evaluate over the scraped data.
5. Three spanprof replicas, peers of each other, each fed a third of 900 traces (whole, by trace
   id) and scraped by one Prometheus: histogram_quantile over the buckets summed by le agrees
   with the replicas' merged HdrHistogram (the fleet's /api/v1/distributions) within the bucket
   it falls in, the recording rule's p99 likewise, and every recording and alerting rule
   evaluates over the three without error.
6. A second spanprof serves its management port with TLS (a CA and certificate openssl makes)
   and asks for a token: plaintext and a scrape without the token are refused, the probes stay
   open, and a real Prometheus with the shipped prometheus-tls.yml scrapes it.

Everything started is stopped and every file written is removed, pass or fail.
Run: /usr/bin/python3 deploy/test/prometheus_it.py (after the build: it needs the service jar).
"""

import json
import math
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import ssl
import urllib.error
import urllib.parse
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PROMETHEUS_DIR = os.path.join(ROOT, "deploy", "prometheus")
# The repository's byte-for-byte copy of shared/golden (GoldenCopiesTest keeps it so).
GOLDEN = os.path.join(ROOT, "service", "src", "test", "resources", "golden",
                      "seed-time-case3-overlap")
JAR = os.path.join(ROOT, "service", "target", "spanprof-all.jar")
DEADLINE_SECONDS = 90
OPENMETRICS = "application/openmetrics-text; version=1.0.0"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(url, data=None, headers=None, context=None):
    request = urllib.request.Request(url, data=data, headers=headers or {})
    with urllib.request.urlopen(request, timeout=10, context=context) as response:
        return response.status, response.read().decode("utf-8")


def status_of(url, headers=None, context=None):
    """The HTTP status, a refusal's included; None when no HTTP answer came (a TLS port asked in
    plaintext, say)."""
    try:
        return http(url, headers=headers, context=context)[0]
    except urllib.error.HTTPError as e:
        return e.code
    except (urllib.error.URLError, OSError):
        return None


def until(what, probe):
    """Polls probe() until it returns a truthy value; fails after the deadline."""
    deadline = time.monotonic() + DEADLINE_SECONDS
    last = None
    while time.monotonic() < deadline:
        try:
            result = probe()
            if result:
                return result
            last = result
        except OSError as e:  # not listening yet, or answering non-200
            last = e
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what} (last: {last!r})")


def check(condition, message):
    if not condition:
        raise AssertionError(message)
    print("ok:", message)


def run(*command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise AssertionError(f"{' '.join(command)} failed:\n{result.stdout}{result.stderr}")
    return result.stdout


def promtool_checks():
    run("promtool", "check", "config", "prometheus.yml", cwd=PROMETHEUS_DIR)
    run("promtool", "check", "rules", "rules.yml", cwd=PROMETHEUS_DIR)
    run("promtool", "test", "rules", "rules.test.yml", cwd=PROMETHEUS_DIR)
    print("ok: promtool check config, check rules, test rules")


def start_spanprof(work, ports, *options, log_name="spanprof.log"):
    overrides = os.path.join(work, "it.yml")
    with open(overrides, "w", encoding="utf-8") as f:
        f.write("spanprof:\n  pools:\n    capacity:\n      'C/*': 2\n")
    log = open(os.path.join(work, log_name), "a", encoding="utf-8")
    config_files = os.path.join(ROOT, "deploy", "kubernetes", "base", "spanprof.yml") + "," + overrides
    return subprocess.Popen([
        "java", "-Dmicronaut.config.files=" + config_files,
        # gRPC is not used here: port 0 binds whatever port is free when the server starts.
        f"-Dmicronaut.server.port={ports['http']}", "-Dgrpc.server.port=0",
        f"-Dspanprof.management.port={ports['management']}", "-Dspanprof.management.host=127.0.0.1",
        "-Dspanprof.assembly.trace-timeout=1s", "-Dspanprof.ranking.refresh=1s",
        "-Dspanprof.pools.window=1s", "-Dspanprof.pools.lateness=2s", *options,
        "-jar", JAR], stdout=log, stderr=subprocess.STDOUT)


def metric_value(text, name, labels=""):
    match = re.search(rf"^{re.escape(name)}{re.escape(labels)} ([0-9.eE+-]+)", text, re.M)
    return float(match.group(1)) if match else None


def spanprof_checks(ports, golden_input, expected):
    base = f"http://127.0.0.1:{ports['management']}"
    until("spanprof ready", lambda: http(base + "/health/readiness")[0] == 200)
    status, _ = http(f"http://127.0.0.1:{ports['http']}/v1/traces", data=golden_input,
                     headers={"Content-Type": "application/json"})
    check(status == 200, "spanprof accepted the golden trace over OTLP/HTTP")
    # Analysed once its trace timeout passed; the pool window and ranking follow within seconds.
    until("the trace analysed, its pool window final and the ranking refreshed", lambda: all(
        name in http(base + "/metrics")[1] for name in (
            'spanprof_traces_total{completion="timeout"} 1.0', "spanprof_pool_utilization_ratio{",
            "spanprof_involvement_ratio{")))

    text = http(base + "/metrics")[1]
    lint = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True)
    findings = {line for line in (lint.stdout + lint.stderr).splitlines() if line.strip()}
    check(not findings, f"promtool check metrics: no finding ({findings or 'none'})")

    scraped = http(base + "/metrics", headers={"Accept": OPENMETRICS})[1]
    families = set(re.findall(r"^# TYPE (\S+)", scraped, re.M))
    for path in (os.path.join(PROMETHEUS_DIR, "rules.yml"), os.path.join(ROOT, "deploy", "grafana", "spanprof.json")):
        with open(path, encoding="utf-8") as f:
            queried = set(re.findall(r"\b(spanprof_[a-z_]+)", f.read()))
        missing = {name for name in queried
                   if re.sub(r"_(total|bucket|sum|count|created)$", "", name) not in families}
        check(not missing, f"every spanprof metric {os.path.basename(path)} queries is scraped ({sorted(missing) or 'all found'})")
    check(metric_value(text, "spanprof_received_spans_total", '{transport="http"}') == expected["spanCount"],
          "spanprof counted the golden trace's spans")


def start_prometheus(work, ports, config_name="prometheus.yml", targets=None):
    shutil.copy(os.path.join(PROMETHEUS_DIR, "rules.yml"), work)
    with open(os.path.join(PROMETHEUS_DIR, config_name), encoding="utf-8") as f:
        config = f.read()
    # The shipped file, pointed at this spanprof and scraping and evaluating every second.
    config = config.replace('"localhost:9464"', ", ".join(
        f'"{target}"' for target in (targets or [f"127.0.0.1:{ports['management']}"])))
    config = re.sub(r"(scrape|evaluation)_interval: 15s", r"\1_interval: 1s", config)
    check(all(target in config for target in (targets or [f"127.0.0.1:{ports['management']}"])),
          "prometheus.yml's targets pointed at spanprof")
    with open(os.path.join(work, "prometheus.yml"), "w", encoding="utf-8") as f:
        f.write(config)
    run("promtool", "check", "config", "prometheus.yml", cwd=work)
    log = open(os.path.join(work, "prometheus.log"), "a", encoding="utf-8")
    return subprocess.Popen([
        "prometheus", "--config.file=" + os.path.join(work, "prometheus.yml"),
        "--storage.tsdb.path=" + os.path.join(work, "data-" + config_name),
        f"--web.listen-address=127.0.0.1:{ports['prometheus']}"], stdout=log, stderr=subprocess.STDOUT)


def query(ports, promql):
    url = f"http://127.0.0.1:{ports['prometheus']}/api/v1/query?" + urllib.parse.urlencode({"query": promql})
    body = json.loads(http(url)[1])
    if body["status"] != "success":
        raise AssertionError(f"{promql}: {body}")
    return {json.dumps(r["metric"], sort_keys=True): float(r["value"][1]) for r in body["data"]["result"]}


def prometheus_checks(ports, expected):
    api = f"http://127.0.0.1:{ports['prometheus']}"
    until("Prometheus ready", lambda: http(api + "/-/ready")[0] == 200)

    def target_up():
        targets = json.loads(http(api + "/api/v1/targets")[1])["data"]["activeTargets"]
        return [t for t in targets if t["labels"]["job"] == "spanprof" and t["health"] == "up"]
    (target,) = until("the spanprof target up", target_up)
    check(target["scrapeUrl"] == f"http://127.0.0.1:{ports['management']}/metrics", "target up: " + target["scrapeUrl"])

    received = until("spanprof_received_spans_total scraped",
                     lambda: query(ports, 'sum(spanprof_received_spans_total{job="spanprof"})'))
    check(list(received.values()) == [expected["spanCount"]],
          f"Prometheus: spanprof_received_spans_total = {expected['spanCount']}")
    total = query(ports, 'sum(spanprof_resource_time_seconds_total{job="spanprof"})')
    check(list(total.values()) == [expected["resourceTimeNs"] / 1e9],
          f"Prometheus: Σ spanprof_resource_time_seconds_total = {expected['resourceTimeNs'] / 1e9} s")
    by_state = {json.loads(k)["state"]: v for k, v in
                query(ports, 'sum by (state) (spanprof_resource_time_seconds_total{job="spanprof"})').items()}
    want = {s["state"]: s["resourceNs"] / 1e9 for s in expected["states"] if s["resourceNs"] > 0}
    check(by_state == want, f"Prometheus: spanprof_resource_time_seconds_total by state = {want}")
    ratio = until("the recording rules evaluated",
                  lambda: query(ports, "spanprof:buffered_spans:ratio"))
    check(list(ratio.values()) == [0.0], "recording rule spanprof:buffered_spans:ratio = 0 (buffer drained)")


FLEET_TRACES = 900
# Sent before Prometheus scrapes, so that the rest increases the counters it has seen: a rate
# (the recording rules') needs an increase.
FIRST_TRACES = 10


def fleet_traces():
    """900 traces of one root operation, durations spread log-uniformly over 1 ms to 3 s (a fixed
    sequence), each with one child; as OTLP/JSON requests per replica by trace id: the first
    FIRST_TRACES of each, then the rest."""
    requests = [[], [], []]
    for t in range(FLEET_TRACES):
        trace_id = f"{0xF1EE7000 + t:016x}{(t * 2654435761) % 2**64:016x}"
        duration = int(1e6 * 3000 ** ((t * 7919 % FLEET_TRACES) / FLEET_TRACES))
        start = 1_700_000_000_000_000_000 + t * 10_000_000_000
        root = {"traceId": trace_id, "spanId": "00000000000000a1", "name": "GET /x", "kind": 2,
                "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + duration)}
        child = {"traceId": trace_id, "spanId": "00000000000000b2", "parentSpanId": "00000000000000a1",
                 "name": "db.query", "kind": 3, "startTimeUnixNano": str(start + duration // 4),
                 "endTimeUnixNano": str(start + duration // 2)}
        requests[int(trace_id[16:], 16) % 3] += [root, child]
    def body(spans):
        return json.dumps({"resourceSpans": [{
            "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "shop"}}]},
            "scopeSpans": [{"spans": spans}]}]}).encode("utf-8")
    first = 2 * FIRST_TRACES
    return [(body(spans[:first]), body(spans[first:])) for spans in requests], [
        len(spans) // 2 for spans in requests]


def fleet_checks(work):
    # A directory of its own: a Prometheus of its own, with a database of its own.
    work = os.path.join(work, "fleet")
    os.makedirs(work)
    replicas = [{"http": free_port(), "management": free_port()} for _ in range(3)]
    ports = {"prometheus": free_port()}
    peers = ",".join(f"http://127.0.0.1:{r['http']}" for r in replicas)
    processes = []
    try:
        for i, replica in enumerate(replicas):
            processes.append(start_spanprof(work, replica, f"-Dspanprof.query.peers={peers}",
                                            log_name=f"replica-{i}.log"))
        bodies, counts = fleet_traces()

        def send(part, expected):
            for replica, body, count in zip(replicas, bodies, counts):
                until("a replica ready", lambda: http(f"http://127.0.0.1:{replica['management']}/health/readiness")[0] == 200)
                status, _ = http(f"http://127.0.0.1:{replica['http']}/v1/traces", data=body[part],
                                 headers={"Content-Type": "application/json"})
                check(status == 200, f"a replica accepted {'its first' if part == 0 else 'the rest of its'} traces")
            for replica, count in zip(replicas, counts):
                until("the replica's traces analysed", lambda: json.loads(http(
                    f"http://127.0.0.1:{replica['http']}/api/v1/status?scope=local")[1])["analysedTraces"] == expected(count))
            until("all three replicas' traces scraped", lambda: list(query(
                ports, "sum(spanprof_traces_total)").values()) == [float(sum(map(expected, counts)))])

        prometheus = start_prometheus(work, ports, targets=[f"127.0.0.1:{r['management']}" for r in replicas])
        processes.append(prometheus)
        api = f"http://127.0.0.1:{ports['prometheus']}"
        until("Prometheus ready", lambda: http(api + "/-/ready")[0] == 200)
        send(0, lambda count: FIRST_TRACES)
        send(1, lambda count: count)

        selector = '{service_name="shop", span_name="GET /x"}'
        buckets = query(ports, f"sum by (le) (spanprof_duration_seconds_bucket{selector})")
        bounds = sorted(float(json.loads(k)["le"]) for k in buckets)
        distribution = json.loads(http(f"http://127.0.0.1:{replicas[0]['http']}/api/v1/distributions?"
                                       + urllib.parse.urlencode({"service": "shop", "operation": "GET /x"}))[1])
        check(distribution["missingPeers"] == [] and distribution["cumulative"]["count"] == FLEET_TRACES,
              f"the fleet's distribution holds all {FLEET_TRACES} traces")

        def bucket(seconds):
            return next(i for i, le in enumerate(bounds) if seconds <= le)

        def same_bucket(prometheus_seconds, merged_ns, what):
            # The merged value is the top of its 1 % HdrHistogram bucket: allow that much.
            merged = merged_ns / 1e9
            low = bounds[bucket(prometheus_seconds) - 1] if bucket(prometheus_seconds) > 0 else 0
            high = bounds[bucket(prometheus_seconds)]
            check(low * 0.99 <= merged <= high * 1.01,
                  f"{what}: Prometheus {prometheus_seconds:.4f} s and the merged HdrHistogram "
                  f"{merged:.4f} s in one bucket ({low}, {high}]")

        for q in ("0.5", "0.9", "0.99"):
            (value,) = query(ports, f"histogram_quantile({q}, sum by (le) "
                                    f"(spanprof_duration_seconds_bucket{selector}))").values()
            same_bucket(value, distribution["cumulative"]["quantilesNs"][q], f"p{q} over three replicas")
        # A rate needs two samples of each replica's increase; until then the rule is NaN, or
        # covers some replicas only.
        until("every replica's durations increasing in Prometheus", lambda: list(query(
            ports, f"count(rate(spanprof_duration_seconds_count{selector}[5m]) > 0)").values()) == [3.0])
        (recorded,) = until("the recording rule over three replicas evaluated", lambda: [
            value for value in query(ports, f"spanprof:duration_seconds:p99_5m{selector}").values()
            if math.isfinite(value)])
        same_bucket(recorded, distribution["cumulative"]["quantilesNs"]["0.99"],
                    "spanprof:duration_seconds:p99_5m")
        ratios = query(ports, "spanprof:buffered_spans:ratio")
        check(len(ratios) == 3, "spanprof:buffered_spans:ratio: one series per replica")
        rules = [rule for group in json.loads(http(api + "/api/v1/rules")[1])["data"]["groups"]
                 for rule in group["rules"]]
        broken = [(rule["name"], rule.get("lastError")) for rule in rules if rule["health"] != "ok"]
        check(rules and not broken, f"all {len(rules)} recording and alerting rules evaluate over "
                                    f"three replicas ({broken or 'no error'})")
    finally:
        for process in processes:
            stop(process)


def make_certificate(secrets):
    """A CA and a certificate it signed for localhost and 127.0.0.1, with openssl."""
    os.makedirs(secrets)
    run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=it-ca",
        "-keyout", "ca.key", "-out", "spanprof-ca.crt", cwd=secrets)
    run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
        "-keyout", "tls.key", "-out", "tls.csr", cwd=secrets)
    with open(os.path.join(secrets, "san.ext"), "w", encoding="utf-8") as f:
        f.write("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    run("openssl", "x509", "-req", "-in", "tls.csr", "-CA", "spanprof-ca.crt", "-CAkey", "ca.key",
        "-CAcreateserial", "-days", "2", "-extfile", "san.ext", "-out", "tls.crt", cwd=secrets)


def secured_checks(work, ports):
    """The management port with TLS and a token, scraped by Prometheus as prometheus-tls.yml says."""
    secrets = os.path.join(work, "secrets")
    make_certificate(secrets)
    token = "it-metrics-token"
    with open(os.path.join(secrets, "spanprof-metrics-token"), "w", encoding="utf-8") as f:
        f.write(token + "\n")
    spanprof = start_spanprof(work, ports,
                              "-Dspanprof.management.tls.cert-file=" + os.path.join(secrets, "tls.crt"),
                              "-Dspanprof.management.tls.key-file=" + os.path.join(secrets, "tls.key"),
                              "-Dspanprof.management.read-tokens-file="
                              + os.path.join(secrets, "spanprof-metrics-token"))
    prometheus = None
    try:
        trusted = ssl.create_default_context(cafile=os.path.join(secrets, "spanprof-ca.crt"))
        base = f"https://localhost:{ports['management']}"
        until("spanprof ready over TLS", lambda: status_of(base + "/health/readiness", context=trusted) == 200)
        check(status_of(f"http://127.0.0.1:{ports['management']}/health/readiness") is None,
              "the management port answers no plaintext")
        check(status_of(base + "/metrics", context=trusted) == 401, "/metrics without the token: 401")
        check(status_of(base + "/metrics", {"Authorization": "Bearer " + token}, trusted) == 200,
              "/metrics with the token: 200")
        prometheus = start_prometheus(work, ports, "prometheus-tls.yml")
        api = f"http://127.0.0.1:{ports['prometheus']}"
        until("Prometheus ready", lambda: http(api + "/-/ready")[0] == 200)
        tokens = until("spanprof_auth_tokens scraped over TLS with the token",
                       lambda: query(ports, 'spanprof_auth_tokens{job="spanprof",kind="metrics"}'))
        check(list(tokens.values()) == [1.0],
              "Prometheus scraped https://…/metrics with prometheus-tls.yml: spanprof_auth_tokens{kind=metrics} = 1")
    finally:
        stop(prometheus)
        stop(spanprof)


def stop(process):
    if process and process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def main():
    started = time.monotonic()
    with open(GOLDEN + ".otlp.json", "rb") as f:
        golden_input = f.read()
    with open(GOLDEN + ".expected.json", encoding="utf-8") as f:
        expected = json.load(f)
    ports = {name: free_port() for name in ("http", "management", "prometheus")}
    work = tempfile.mkdtemp(prefix="spanprof-prometheus-it-")
    spanprof = prometheus = None
    try:
        promtool_checks()
        spanprof = start_spanprof(work, ports)
        spanprof_checks(ports, golden_input, expected)
        prometheus = start_prometheus(work, ports)
        prometheus_checks(ports, expected)
        stop(prometheus)
        stop(spanprof)
        fleet_checks(work)
        secured_checks(work, ports)
    except BaseException:
        for log in ("spanprof.log", "prometheus.log", "fleet/replica-0.log", "fleet/prometheus.log"):
            path = os.path.join(work, log)
            if os.path.exists(path):
                with open(path, encoding="utf-8", errors="replace") as f:
                    print(f"--- last lines of {log}:\n" + "".join(f.readlines()[-40:]), file=sys.stderr)
        raise
    finally:
        stop(prometheus)
        stop(spanprof)
        shutil.rmtree(work, ignore_errors=True)
    print(f"Prometheus integration test passed in {time.monotonic() - started:.1f} s")


if __name__ == "__main__":
    main()
