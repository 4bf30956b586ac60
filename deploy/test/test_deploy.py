"""Checks what deploy/ ships, rendered and parsed by the real tools: kubectl kustomize for every
kustomization, YAML and JSON parsers for the collector configurations, the dashboard and the
ConfigMaps' spanprof configuration (every key must be one docs/configuration.md documents).

Run: /usr/bin/python3 -m unittest discover -s deploy/test -p 'test_*.py'
"""

import json
import os
import re
import shutil
import subprocess
import unittest
from xml.etree import ElementTree

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEPLOY = os.path.join(ROOT, "deploy")
KUBECTL = os.environ.get("KUBECTL") or shutil.which("kubectl")
PORTS = {"otlp-grpc": 4317, "otlp-http": 4318, "metrics": 9464}


def render(path):
    """The manifests kubectl kustomize renders from deploy/<path>, by (kind, name)."""
    out = subprocess.run([KUBECTL, "kustomize", os.path.join(DEPLOY, path)],
                         check=True, capture_output=True, text=True).stdout
    return {(d["kind"], d["metadata"]["name"]): d for d in yaml.safe_load_all(out) if d}


def one(manifests, kind, name_prefix=""):
    found = [d for (k, n), d in manifests.items() if k == kind and n.startswith(name_prefix)]
    if len(found) != 1:
        raise AssertionError(f"expected one {kind} named {name_prefix}*, found {len(found)}")
    return found[0]


def env(container):
    return {e["name"]: e.get("value") for e in container.get("env", [])}


def image_java_options():
    """The JVM options the image sets (its ENV JAVA_TOOL_OPTIONS)."""
    with open(os.path.join(DEPLOY, "Dockerfile"), encoding="utf-8") as dockerfile:
        (options,) = re.findall(r'^ENV JAVA_TOOL_OPTIONS="([^"]*)"$', dockerfile.read(), re.M)
    return options


def documented_keys():
    """The spanprof.* keys of docs/configuration.md's table."""
    with open(os.path.join(ROOT, "docs", "configuration.md"), encoding="utf-8") as readme:
        return set(re.findall(r"^\| `(spanprof\.[a-z0-9.-]+)` \|", readme.read(), re.M))


def megabytes(size):
    """A Micronaut size such as 256MB or 1GB, in MiB."""
    number, unit = re.fullmatch(r"(\d+)(KB|MB|GB)", size).groups()
    return int(number) * {"KB": 1 / 1024, "MB": 1, "GB": 1024}[unit]


def flatten(tree, prefix=""):
    for key, value in tree.items():
        path = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict) and not path.endswith((".capacity", ".headers", ".expected-interval")):
            yield from flatten(value, path)
        else:
            yield path


class SpanprofContainerChecks:
    """What every spanprof container must have, wherever it runs."""

    def check_spanprof_container(self, container, readiness):
        self.assertEqual({p["name"]: p["containerPort"] for p in container["ports"]}, PORTS)
        # Plain HTTP, or HTTPS where the overlay serves the metrics port with TLS.
        def target(probe):
            return {k: v for k, v in container[probe]["httpGet"].items() if k != "scheme"}
        self.assertEqual(target("livenessProbe"), {"path": "/health/liveness", "port": "metrics"})
        if readiness:
            self.assertEqual(target("readinessProbe"), {"path": "/health/readiness", "port": "metrics"})
        self.assertEqual(container["startupProbe"]["httpGet"]["path"], "/health/readiness")
        security = container["securityContext"]
        self.assertIs(security["readOnlyRootFilesystem"], True)
        self.assertIs(security["allowPrivilegeEscalation"], False)
        self.assertEqual(security["capabilities"]["drop"], ["ALL"])
        self.assertTrue(container["image"].startswith("ghcr.io/spanprof/spanprof:"))
        self.assertEqual(env(container)["MICRONAUT_CONFIG_FILES"], "/etc/spanprof/spanprof.yml")
        # An OutOfMemoryError ends the process, so the pod restarts instead of reporting UP.
        self.assertIn("-XX:+ExitOnOutOfMemoryError", env(container)["JAVA_TOOL_OPTIONS"].split())
        mounts = {m["mountPath"] for m in container["volumeMounts"]}
        self.assertLessEqual({"/etc/spanprof", "/tmp"}, mounts)
        limits = container["resources"]["limits"]
        self.assertEqual(container["resources"]["requests"]["memory"], limits["memory"],
                         "memory request equals limit: the heap is a share of the limit")

    def check_scrape_annotations(self, pod_template, **more):
        self.assertEqual(pod_template["metadata"]["annotations"], {
            "prometheus.io/scrape": "true", "prometheus.io/port": "9464",
            "prometheus.io/path": "/metrics", **more})

    def check_config_map(self, config_map):
        config = yaml.safe_load(config_map["data"]["spanprof.yml"])
        undocumented = set(flatten(config)) - documented_keys()
        self.assertEqual(undocumented, set(), "keys docs/configuration.md does not document")
        return config["spanprof"]


@unittest.skipUnless(KUBECTL, "kubectl is not installed (scripts/install-test-tools.sh installs it)")
class BaseTest(unittest.TestCase, SpanprofContainerChecks):

    def setUp(self):
        self.manifests = render("kubernetes/base")

    def test_kinds(self):
        self.assertEqual(sorted(k for k, _ in self.manifests),
                         ["ConfigMap", "Deployment", "PodDisruptionBudget", "Service"])

    def test_deployment(self):
        deployment = one(self.manifests, "Deployment", "spanprof")
        pod = deployment["spec"]["template"]
        self.check_scrape_annotations(pod)
        self.assertIs(pod["spec"]["securityContext"]["runAsNonRoot"], True)
        (container,) = pod["spec"]["containers"]
        self.check_spanprof_container(container, readiness=True)
        # The image's JVM options, the collector choice with them.
        self.assertEqual(env(container)["JAVA_TOOL_OPTIONS"], image_java_options())
        self.assertIn("-XX:+UseParallelGC", image_java_options().split())
        # The heap starts at its bound (BENCHMARKS.md, "At the rates users run"): grown from a
        # small one, its young generation stays small at moderate rates and each collection
        # copies the spans waiting for their traces.
        percentages = dict(re.findall(r"-XX:(Initial|Max)RAMPercentage=(\d+)",
                                      image_java_options()))
        self.assertIsNotNone(percentages.get("Max"))
        self.assertEqual(percentages.get("Initial"), percentages.get("Max"))
        config_map = one(self.manifests, "ConfigMap", "spanprof-config-")
        volumes = {v["name"]: v for v in pod["spec"]["volumes"]}
        self.assertEqual(volumes["config"]["configMap"]["name"], config_map["metadata"]["name"])
        self.assertIn("emptyDir", volumes["tmp"])

    def test_config_is_sized_for_the_memory_limit(self):
        spanprof = self.check_config_map(one(self.manifests, "ConfigMap", "spanprof-config-"))
        # BENCHMARKS.md: ~565 bytes of heap per buffered span; the buffer takes at most a quarter
        # of the heap, which is 75 % of the 2 GiB limit.
        self.assertLessEqual(spanprof["assembly"]["max-buffered-spans"] * 565, 0.75 * 2 * 2**30 / 4)
        # The span store holds the bytes of the spans bounded above; what stragglers keep of it
        # comes on top at worst: at most a third of the heap.
        self.assertLessEqual(megabytes(spanprof["ingest"]["span-store-size"]), 0.75 * 2 * 1024 / 3)
        self.assertEqual(spanprof["management"]["port"], 9464)

    def test_service_and_disruption_budget(self):
        service = one(self.manifests, "Service", "spanprof")
        self.assertEqual({p["name"]: p["port"] for p in service["spec"]["ports"]}, PORTS)
        pod_labels = one(self.manifests, "Deployment", "spanprof")["spec"]["template"]["metadata"]["labels"]
        self.assertLessEqual(service["spec"]["selector"].items(), pod_labels.items())
        budget = one(self.manifests, "PodDisruptionBudget", "spanprof")
        self.assertEqual(budget["spec"]["maxUnavailable"], 1)
        self.assertEqual(budget["spec"]["selector"]["matchLabels"]["app.kubernetes.io/name"], "spanprof")


@unittest.skipUnless(KUBECTL, "kubectl is not installed (scripts/install-test-tools.sh installs it)")
class GatewayTest(unittest.TestCase, SpanprofContainerChecks):

    def setUp(self):
        self.manifests = render("kubernetes/overlays/gateway")

    def test_kinds(self):
        self.assertEqual(sorted(k for k, _ in self.manifests), sorted([
            "Namespace", "ServiceAccount", "Role", "RoleBinding", "ConfigMap", "ConfigMap",
            "Service", "Service", "Service", "Deployment", "Deployment", "PodDisruptionBudget",
            "NetworkPolicy"]))
        for (kind, name), manifest in self.manifests.items():
            if kind != "Namespace":
                self.assertEqual(manifest["metadata"].get("namespace"), "spanprof", f"{kind} {name}")

    def test_only_the_gateway_the_replicas_and_prometheus_reach_the_replicas(self):
        policy = self.manifests[("NetworkPolicy", "spanprof")]
        replicas = self.manifests[("Deployment", "spanprof")]["spec"]["template"]["metadata"]
        self.assertEqual(policy["spec"]["podSelector"]["matchLabels"].items() - replicas["labels"].items(),
                         set())
        self.assertEqual(policy["spec"]["policyTypes"], ["Ingress"])
        gateway_labels = self.manifests[("Deployment", "otel-gateway")]["spec"]["template"]["metadata"]["labels"]
        rules = {tuple(sorted(p["port"] for p in rule["ports"])): rule["from"]
                 for rule in policy["spec"]["ingress"]}
        self.assertEqual(set(rules), {(PORTS["otlp-grpc"], PORTS["otlp-http"]), (PORTS["otlp-http"],),
                                      (PORTS["metrics"],)})
        (otlp,) = rules[(PORTS["otlp-grpc"], PORTS["otlp-http"])]
        self.assertEqual(otlp["podSelector"]["matchLabels"].items() - gateway_labels.items(), set())
        (peers,) = rules[(PORTS["otlp-http"],)]
        self.assertEqual(peers["podSelector"]["matchLabels"].items() - replicas["labels"].items(), set())
        (metrics,) = rules[(PORTS["metrics"],)]
        self.assertEqual(metrics["podSelector"]["matchLabels"], {"app.kubernetes.io/name": "prometheus"})

    def test_replicas_forward_back_to_the_gateway(self):
        deployment = self.manifests[("Deployment", "spanprof")]
        self.assertEqual(deployment["spec"]["replicas"], 3)
        (container,) = deployment["spec"]["template"]["spec"]["containers"]
        self.check_spanprof_container(container, readiness=True)
        endpoint = env(container)["SPANPROF_EXPORT_ENDPOINT"]
        gateway = self.manifests[("Service", "otel-gateway")]
        enriched = {p["name"]: p["port"] for p in gateway["spec"]["ports"]}["enriched"]
        self.assertEqual(endpoint, f"http://otel-gateway.spanprof.svc.cluster.local:{enriched}")
        collector = self.collector_config()
        self.assertEqual(collector["receivers"]["otlp/enriched"]["protocols"]["grpc"]["endpoint"],
                         f"0.0.0.0:{enriched}")

    def test_replicas_spool_on_a_volume_of_their_own(self):
        deployment = self.manifests[("Deployment", "spanprof")]
        spec = deployment["spec"]["template"]["spec"]
        (container,) = spec["containers"]
        directory = env(container)["SPANPROF_EXPORT_SPOOL_DIRECTORY"]
        mount = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}[directory]
        volume = {v["name"]: v for v in spec["volumes"]}[mount]
        self.assertIn("emptyDir", volume)
        self.assertEqual(env(container)["SPANPROF_EXPORT_SPOOL_MAX_SIZE"], "1GB")
        self.assertEqual({m["mountPath"] for m in container["volumeMounts"]},
                         {"/etc/spanprof", "/tmp", directory, "/etc/spanprof-tls",
                          "/etc/spanprof-tokens"})

    def test_replicas_serve_tls_and_take_tokens_the_collector_has(self):
        spec = self.manifests[("Deployment", "spanprof")]["spec"]["template"]["spec"]
        (container,) = spec["containers"]
        secrets = {m["mountPath"]: {v["name"]: v for v in spec["volumes"]}[m["name"]]["secret"]["secretName"]
                   for m in container["volumeMounts"] if m["mountPath"].startswith("/etc/spanprof-")}
        variables = env(container)
        self.assertEqual(variables["SPANPROF_TLS_CERT_FILE"], "/etc/spanprof-tls/tls.crt")
        self.assertEqual(variables["SPANPROF_TLS_KEY_FILE"], "/etc/spanprof-tls/tls.key")
        self.assertEqual(variables["SPANPROF_AUTH_WRITE_TOKENS_FILE"], "/etc/spanprof-tokens/write")
        self.assertEqual(variables["SPANPROF_AUTH_READ_TOKENS_FILE"], "/etc/spanprof-tokens/read")
        self.assertEqual(secrets, {"/etc/spanprof-tls": "spanprof-tls",
                                   "/etc/spanprof-tokens": "spanprof-tokens"})
        # The collector trusts the certificate's CA and sends a token of the same Secret.
        gateway = self.manifests[("Deployment", "otel-gateway")]["spec"]["template"]["spec"]
        (collector,) = gateway["containers"]
        mount = {m["name"]: m["mountPath"] for m in collector["volumeMounts"]}["spanprof-credentials"]
        (volume,) = [v for v in gateway["volumes"] if v["name"] == "spanprof-credentials"]
        projected = {(s["secret"]["name"], i["key"]): f"{mount}/{i['path']}"
                     for s in volume["projected"]["sources"] for i in s["secret"]["items"]}
        config = self.collector_config()
        otlp = config["exporters"]["loadbalancing"]["protocol"]["otlp"]
        self.assertEqual(otlp["tls"]["ca_file"], projected[("spanprof-tls", "ca.crt")])
        self.assertNotIn("insecure", otlp["tls"])
        authenticator = otlp["auth"]["authenticator"]
        self.assertIn(authenticator, config["service"]["extensions"])
        self.assertEqual(config["extensions"][authenticator]["filename"],
                         projected[("spanprof-tokens", "gateway")])

    def test_replicas_metrics_port_serves_tls_and_asks_for_its_own_token(self):
        deployment = self.manifests[("Deployment", "spanprof")]
        (container,) = deployment["spec"]["template"]["spec"]["containers"]
        variables = env(container)
        self.assertEqual(variables["SPANPROF_MANAGEMENT_TLS_CERT_FILE"], variables["SPANPROF_TLS_CERT_FILE"])
        self.assertEqual(variables["SPANPROF_MANAGEMENT_TLS_KEY_FILE"], variables["SPANPROF_TLS_KEY_FILE"])
        self.assertEqual(variables["SPANPROF_MANAGEMENT_READ_TOKENS_FILE"], "/etc/spanprof-tokens/metrics")
        for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
            self.assertEqual(container[probe]["httpGet"]["scheme"], "HTTPS", probe)
        self.check_scrape_annotations(deployment["spec"]["template"], **{"prometheus.io/scheme": "https"})

    def test_replicas_answer_for_the_fleet_through_the_front_door(self):
        (container,) = self.manifests[("Deployment", "spanprof")]["spec"]["template"]["spec"]["containers"]
        variables = env(container)
        headless = self.manifests[("Service", "spanprof-headless")]["metadata"]["name"]
        self.assertEqual(variables["SPANPROF_QUERY_PEERS"],
                         f"dns+https://{headless}.spanprof.svc:{PORTS['otlp-http']}")
        self.assertEqual(variables["SPANPROF_QUERY_PEER_CA_FILE"], "/etc/spanprof-tls/ca.crt")
        self.assertEqual(variables["SPANPROF_QUERY_PEER_TOKEN_FILE"], "/etc/spanprof-tokens/peer")
        # Any replica answers for all, through the one Service on the query port.
        query = self.manifests[("Service", "spanprof")]
        self.assertIn(PORTS["otlp-http"], [p["port"] for p in query["spec"]["ports"]])
        self.assertNotEqual(query["spec"].get("clusterIP"), "None")

    def test_collector_routes_by_trace_id_to_the_headless_service(self):
        headless = self.manifests[("Service", "spanprof-headless")]
        self.assertEqual(headless["spec"]["clusterIP"], "None")
        self.assertEqual(headless["spec"]["selector"], {"app.kubernetes.io/name": "spanprof"})
        (port,) = headless["spec"]["ports"]
        self.assertEqual((port["port"], port["targetPort"]), (4317, "otlp-grpc"))
        balancing = self.collector_config()["exporters"]["loadbalancing"]
        self.assertEqual(balancing["routing_key"], "traceID")
        self.assertEqual(balancing["resolver"]["k8s"], {
            "service": f"{headless['metadata']['name']}.{headless['metadata']['namespace']}",
            "ports": [port["port"]]})
        self.assertIn("otlp", balancing["protocol"])

    def test_collector_may_watch_the_endpoints(self):
        deployment = self.manifests[("Deployment", "otel-gateway")]
        account = deployment["spec"]["template"]["spec"]["serviceAccountName"]
        binding = self.manifests[("RoleBinding", "otel-gateway-endpoints")]
        self.assertEqual(binding["subjects"], [
            {"kind": "ServiceAccount", "name": account, "namespace": "spanprof"}])
        rules = self.manifests[("Role", binding["roleRef"]["name"])]["rules"]
        watched = {(g, r) for rule in rules for g in rule["apiGroups"] for r in rule["resources"]
                   if {"get", "list", "watch"} <= set(rule["verbs"])}
        self.assertIn(("", "endpoints"), watched)
        self.assertIn(("discovery.k8s.io", "endpointslices"), watched)

    def collector_config(self):
        config_map = one(self.manifests, "ConfigMap", "otel-gateway-config-")
        return yaml.safe_load(config_map["data"]["collector.yaml"])


@unittest.skipUnless(KUBECTL, "kubectl is not installed (scripts/install-test-tools.sh installs it)")
class SidecarTest(unittest.TestCase, SpanprofContainerChecks):

    def setUp(self):
        self.manifests = render("kubernetes/overlays/sidecar")
        self.pod = self.manifests[("Deployment", "checkout")]["spec"]["template"]

    def test_kinds(self):
        self.assertEqual(sorted(k for k, _ in self.manifests), ["ConfigMap", "Deployment"])

    def test_the_app_exports_to_its_sidecar(self):
        (app,) = self.pod["spec"]["containers"]
        self.assertEqual(app["name"], "app")
        self.assertEqual(env(app)["OTEL_EXPORTER_OTLP_ENDPOINT"], "http://localhost:4317")
        self.assertEqual(env(app)["OTEL_EXPORTER_OTLP_PROTOCOL"], "grpc")
        self.assertEqual(env(app)["OTEL_SERVICE_NAME"], "checkout")

    def test_the_sidecar_runs_beside_the_app_and_forwards_to_the_cluster_collector(self):
        (sidecar,) = self.pod["spec"]["initContainers"]
        self.assertEqual(sidecar["name"], "spanprof")
        # Least exposure: OTLP and the API on the pod's loopback, where the app is.
        self.assertEqual(env(sidecar)["MICRONAUT_SERVER_HOST"], "127.0.0.1")
        self.assertEqual(env(sidecar)["GRPC_SERVER_HOST"], "127.0.0.1")
        self.assertEqual(sidecar["restartPolicy"], "Always")
        self.check_spanprof_container(sidecar, readiness=False)
        self.assertNotIn("readinessProbe", sidecar)
        self.check_scrape_annotations(self.pod)
        config_map = one(self.manifests, "ConfigMap", "spanprof-sidecar-config-")
        volumes = {v["name"]: v for v in self.pod["spec"]["volumes"]}
        self.assertEqual(volumes["spanprof-config"]["configMap"]["name"],
                         config_map["metadata"]["name"])
        spanprof = self.check_config_map(config_map)
        # BENCHMARKS.md, "Sidecar": one core's collector and a fixed heap, about 120 MiB besides
        # it (code, class metadata, threads), and glibc's arenas kept few and trimmed.
        options = env(sidecar)["JAVA_TOOL_OPTIONS"].split()
        self.assertIn("-XX:+UseSerialGC", options)
        (heap,) = [int(o[len("-Xmx"):-1]) for o in options if re.fullmatch(r"-Xmx\d+m", o)]
        limit = sidecar["resources"]["limits"]["memory"]
        self.assertRegex(limit, r"^\d+Mi$")
        self.assertLessEqual(heap + 160, int(limit[:-2]), "the heap and the rest fit the limit")
        self.assertEqual(env(sidecar)["MALLOC_ARENA_MAX"], "2")
        # The buffer covers 10 000 spans/s over the trace timeout and a sweep interval, the
        # analysis queue a sweep's worth; the span store holds those spans' bytes and at most
        # half the heap.
        assembly = spanprof["assembly"]
        self.assertEqual(assembly["trace-timeout"], "5s")
        self.assertEqual(assembly["sweep-interval"], "250ms")
        self.assertGreaterEqual(assembly["max-buffered-spans"], 10_000 * 5.25)
        self.assertGreaterEqual(spanprof["analysis"]["max-queued-spans"], 10_000 * 0.25)
        self.assertLessEqual(megabytes(spanprof["ingest"]["span-store-size"]), heap / 2)
        cluster = render("otel-collector/cluster")
        service = self.manifests_service(cluster, "otel-collector")
        grpc = {p["name"]: p["port"] for p in service["spec"]["ports"]}["otlp-grpc"]
        self.assertEqual(spanprof["export"]["endpoint"],
                         f"http://otel-collector.{service['metadata']['namespace']}.svc.cluster.local:{grpc}")

    @staticmethod
    def manifests_service(manifests, name):
        return manifests[("Service", name)]


@unittest.skipUnless(KUBECTL, "kubectl is not installed (scripts/install-test-tools.sh installs it)")
class PrometheusOperatorTest(unittest.TestCase):
    """The PodMonitor and ServiceMonitor find what the base and the sidecar overlay deploy."""

    @staticmethod
    def load(name):
        with open(os.path.join(DEPLOY, "prometheus", name), encoding="utf-8") as f:
            return yaml.safe_load(f)

    def test_service_monitor_selects_the_service_and_its_metrics_port(self):
        monitor = self.load("servicemonitor.yaml")
        self.assertEqual((monitor["apiVersion"], monitor["kind"]), ("monitoring.coreos.com/v1", "ServiceMonitor"))
        service = one(render("kubernetes/base"), "Service", "spanprof")
        self.assertLessEqual(monitor["spec"]["selector"]["matchLabels"].items(),
                             service["metadata"]["labels"].items())
        (endpoint,) = monitor["spec"]["endpoints"]
        self.assertIn(endpoint["port"], [p["name"] for p in service["spec"]["ports"]])
        self.assertEqual(endpoint["path"], "/metrics")

    def test_gateway_service_monitor_presents_the_metrics_token_and_trusts_the_ca(self):
        monitor = self.load("servicemonitor-gateway.yaml")
        gateway = render("kubernetes/overlays/gateway")
        service = gateway[("Service", "spanprof")]
        headless = gateway[("Service", "spanprof-headless")]
        self.assertEqual(monitor["metadata"]["namespace"], service["metadata"]["namespace"])
        self.assertLessEqual(monitor["spec"]["selector"]["matchLabels"].items(),
                             service["metadata"]["labels"].items())
        (endpoint,) = monitor["spec"]["endpoints"]
        self.assertIn(endpoint["port"], [p["name"] for p in service["spec"]["ports"]])
        self.assertEqual(endpoint["scheme"], "https")
        self.assertEqual(endpoint["authorization"]["credentials"], {"name": "spanprof-tokens", "key": "metrics"})
        self.assertEqual(endpoint["tlsConfig"]["ca"]["secret"], {"name": "spanprof-tls", "key": "ca.crt"})
        self.assertEqual(endpoint["tlsConfig"]["serverName"],
                         f"{headless['metadata']['name']}.{headless['metadata']['namespace']}.svc")
        # The token it presents is one the replicas read: the same Secret's key, mounted.
        spec = gateway[("Deployment", "spanprof")]["spec"]["template"]["spec"]
        (container,) = spec["containers"]
        mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
        volumes = {v["name"]: v for v in spec["volumes"]}
        directory, key = os.path.split(env(container)["SPANPROF_MANAGEMENT_READ_TOKENS_FILE"])
        self.assertEqual(volumes[mounts[directory]]["secret"]["secretName"], "spanprof-tokens")
        self.assertEqual(key, "metrics")

    def test_pod_monitor_keeps_the_spanprof_container_wherever_it_runs(self):
        monitor = self.load("podmonitor.yaml")
        self.assertEqual((monitor["apiVersion"], monitor["kind"]), ("monitoring.coreos.com/v1", "PodMonitor"))
        (endpoint,) = monitor["spec"]["podMetricsEndpoints"]
        (keep,) = endpoint["relabelings"]
        self.assertEqual((keep["sourceLabels"], keep["action"]), (["__meta_kubernetes_pod_container_name"], "keep"))
        pods = [one(render("kubernetes/base"), "Deployment", "spanprof")["spec"]["template"]["spec"],
                render("kubernetes/overlays/sidecar")[("Deployment", "checkout")]["spec"]["template"]["spec"]]
        for pod in pods:
            containers = pod["containers"] + pod.get("initContainers", [])
            matching = [c for c in containers if re.fullmatch(keep["regex"], c["name"])]
            self.assertEqual(len(matching), 1)
            self.assertIn(endpoint["port"], [p["name"] for p in matching[0]["ports"]])


@unittest.skipUnless(KUBECTL, "kubectl is not installed (scripts/install-test-tools.sh installs it)")
class KafkaOverlayTest(unittest.TestCase, SpanprofContainerChecks):

    def setUp(self):
        self.manifests = render("kubernetes/overlays/kafka")

    def test_kinds(self):
        self.assertEqual(sorted(k for k, _ in self.manifests), sorted([
            "Namespace", "ConfigMap", "ConfigMap", "Service", "Service", "Service",
            "Deployment", "Deployment", "PodDisruptionBudget", "NetworkPolicy"]))
        for (kind, name), manifest in self.manifests.items():
            if kind != "Namespace":
                self.assertEqual(manifest["metadata"].get("namespace"), "spanprof", f"{kind} {name}")

    def test_replicas_read_the_topic_the_collector_writes_as_one_group(self):
        (container,) = self.manifests[("Deployment", "spanprof")]["spec"]["template"]["spec"]["containers"]
        variables = env(container)
        exporter = self.collector_config()["exporters"]["kafka"]
        self.assertEqual(variables["SPANPROF_KAFKA_BOOTSTRAP_SERVERS"], ",".join(exporter["brokers"]))
        self.assertEqual(variables["SPANPROF_KAFKA_TOPIC"], exporter["topic"])
        self.assertEqual(variables["SPANPROF_KAFKA_GROUP_ID"], "spanprof")
        self.assertEqual(exporter["encoding"], "otlp_proto")
        self.assertIs(exporter["partition_traces_by_id"], True)
        # The documented keys only.
        self.assertLessEqual({k.removeprefix("SPANPROF_KAFKA_").lower().replace("_", "-")
                              for k in variables if k.startswith("SPANPROF_KAFKA_")},
                             {"bootstrap-servers", "topic", "encoding", "group-id",
                              "commit-interval", "handover-timeout"})

    def test_replicas_answer_for_the_fleet_and_forward_back_to_the_collector(self):
        (container,) = self.manifests[("Deployment", "spanprof")]["spec"]["template"]["spec"]["containers"]
        variables = env(container)
        headless = self.manifests[("Service", "spanprof-headless")]
        self.assertEqual(headless["spec"]["clusterIP"], "None")
        self.assertEqual(variables["SPANPROF_QUERY_PEERS"],
                         f"dns+http://{headless['metadata']['name']}.spanprof.svc:{PORTS['otlp-http']}")
        collector = self.manifests[("Service", "otel-kafka")]
        enriched = {p["name"]: p["port"] for p in collector["spec"]["ports"]}["enriched"]
        self.assertEqual(variables["SPANPROF_EXPORT_ENDPOINT"],
                         f"http://otel-kafka.spanprof.svc.cluster.local:{enriched}")
        self.assertEqual(self.collector_config()["receivers"]["otlp/enriched"]["protocols"]["grpc"]["endpoint"],
                         f"0.0.0.0:{enriched}")

    def test_nothing_reaches_the_otlp_ports_only_peers_and_prometheus(self):
        policy = self.manifests[("NetworkPolicy", "spanprof")]
        reached = sorted(p["port"] for rule in policy["spec"]["ingress"] for p in rule["ports"])
        self.assertEqual(reached, [PORTS["otlp-http"], PORTS["metrics"]])

    def test_deployment(self):
        template = self.manifests[("Deployment", "spanprof")]["spec"]["template"]
        (container,) = template["spec"]["containers"]
        self.check_spanprof_container(container, readiness=True)
        self.check_scrape_annotations(template)

    def test_a_stopping_replica_has_time_to_hand_its_partitions_over(self):
        spec = self.manifests[("Deployment", "spanprof")]["spec"]["template"]["spec"]
        # The handover timeout (30 s by default) and the drain after it.
        self.assertGreaterEqual(spec["terminationGracePeriodSeconds"], 30)

    def collector_config(self):
        config_map = one(self.manifests, "ConfigMap", "otel-kafka-config-")
        return yaml.safe_load(config_map["data"]["collector.yaml"])


class CollectorConfigTest(unittest.TestCase):
    """The collector configurations: valid YAML, every pipeline's parts defined, the keys the
    collector (contrib 0.120.0) expects."""

    def check(self, name):
        with open(os.path.join(DEPLOY, "otel-collector", name, "collector.yaml"), encoding="utf-8") as f:
            config = yaml.safe_load(f)
        self.assertEqual(set(config) - {"extensions"}, {"receivers", "processors", "exporters", "service"})
        for extension in config["service"].get("extensions", []):
            self.assertIn(extension, config["extensions"])
        for pipeline_name, pipeline in config["service"]["pipelines"].items():
            self.assertEqual(pipeline_name.split("/")[0], "traces")
            for part in ("receivers", "processors", "exporters"):
                for component in pipeline.get(part, []):
                    self.assertIn(component, config[part], f"{pipeline_name} uses undefined {component}")
        for receiver in config["receivers"].values():
            for protocol, settings in receiver["protocols"].items():
                self.assertIn(protocol, ("grpc", "http"))
                self.assertRegex(settings["endpoint"], r"^0\.0\.0\.0:\d+$")
        self.assertIn("memory_limiter", config["processors"])
        return config

    def test_gateway(self):
        config = self.check("gateway")
        balancing = config["exporters"]["loadbalancing"]
        self.assertEqual(set(balancing), {"routing_key", "protocol", "resolver"})
        self.assertEqual(balancing["routing_key"], "traceID")
        self.assertEqual(len(balancing["resolver"]), 1, "the exporter takes exactly one resolver")
        self.assertEqual(set(balancing["protocol"]), {"otlp"})
        pipelines = config["service"]["pipelines"]
        self.assertEqual(pipelines["traces/in"]["exporters"], ["loadbalancing"])
        # Batching before the load balancer would mix traces; it splits by trace id anyway.
        self.assertNotIn("batch", pipelines["traces/in"]["processors"])

    def test_kafka(self):
        config = self.check("kafka")
        kafka = config["exporters"]["kafka"]
        self.assertLessEqual(set(kafka), {"brokers", "protocol_version", "topic", "encoding",
                                          "partition_traces_by_id", "producer", "sending_queue",
                                          "retry_on_failure", "timeout", "auth", "metadata"})
        self.assertEqual(set(kafka["producer"]) - {"required_acks", "compression", "max_message_bytes"}, set())
        self.assertEqual(config["service"]["pipelines"]["traces/in"]["exporters"], ["kafka"])

    def test_cluster(self):
        config = self.check("cluster")
        self.assertEqual(config["service"]["pipelines"]["traces"]["exporters"], ["otlp/backend"])


class ImageTest(unittest.TestCase):
    """The Dockerfile (no Docker engine here to build it: its shape is checked instead)."""

    def setUp(self):
        with open(os.path.join(DEPLOY, "Dockerfile"), encoding="utf-8") as f:
            text = re.sub(r"\\\n\s*", " ", f.read())  # join continued lines
        self.lines = [l.strip() for l in text.splitlines() if l.strip() and not l.startswith("#")]

    def instructions(self, name):
        return [l[len(name) + 1:] for l in self.lines if l.startswith(name + " ")]

    def test_multi_stage_onto_a_java_17_jre(self):
        stages = self.instructions("FROM")
        self.assertGreaterEqual(len(stages), 2)
        self.assertEqual(stages[-1], "eclipse-temurin:17-jre")
        self.assertIn("--from=build", " ".join(self.instructions("COPY")))

    def test_the_build_makes_and_the_runtime_loads_the_isa_l_gzip(self):
        # The service's isal Maven profile needs ISA-L's headers; the runtime, its library.
        runtime = max(i for i, l in enumerate(self.lines) if l.startswith("FROM "))
        build_runs = " ".join(l for l in self.lines[:runtime] if l.startswith("RUN "))
        runtime_runs = " ".join(l for l in self.lines[runtime:] if l.startswith("RUN "))
        self.assertIn("libisal-dev", build_runs)
        self.assertIn("gcc", build_runs)
        self.assertIn("libisal2", runtime_runs)
        build = " ".join(self.lines[:runtime])
        self.assertLess(build.index("libisal-dev"), build.index("package -DskipTests"))

    def test_runs_as_a_numeric_non_root_user(self):
        (user,) = self.instructions("USER")
        self.assertNotEqual(user.split(":")[0], "0")
        self.assertTrue(user.split(":")[0].isdigit())

    def test_ports_and_health_check(self):
        self.assertEqual(self.instructions("EXPOSE"), ["4317 4318 9464"])
        (check,) = self.instructions("HEALTHCHECK")
        self.assertIn("dev.spanprof.management.HealthCheck", check)
        self.assertIn("http://127.0.0.1:9464/health/readiness", check)
        self.assertTrue(os.path.exists(os.path.join(
            ROOT, "service/src/main/java/dev/spanprof/management/HealthCheck.java")))


    def test_the_maven_profile_builds_this_dockerfile(self):
        namespace = {"m": "http://maven.apache.org/POM/4.0.0"}
        pom = ElementTree.parse(os.path.join(ROOT, "pom.xml"))
        commands = {p.findtext("m:id", namespaces=namespace): [
                        c.text for c in p.iterfind(".//m:commandlineArgs", namespace)]
                    for p in pom.iterfind("m:profiles/m:profile", namespace)}
        self.assertEqual(commands["image"],
                         ["build --file deploy/Dockerfile --tag ${image.name}:${project.version} ${project.basedir}"])
        self.assertEqual(commands["image-push"], ["push ${image.name}:${project.version}"])


class DashboardTest(unittest.TestCase):

    def test_every_panel_queries_prometheus(self):
        with open(os.path.join(DEPLOY, "grafana", "spanprof.json"), encoding="utf-8") as f:
            dashboard = json.load(f)
        panels = [p for p in dashboard["panels"] if p["type"] != "row"]
        self.assertGreaterEqual(len(panels), 15)
        self.assertEqual(len({p["id"] for p in dashboard["panels"]}), len(dashboard["panels"]))
        for panel in panels:
            self.assertTrue(panel["targets"], panel["title"])
            for target in panel["targets"]:
                self.assertRegex(target["expr"], r"spanprof_|process_|jvm_", panel["title"])
        exprs = {p["id"]: [t["expr"] for t in p["targets"]] for p in panels}
        # Merged across replicas: quantiles from the summed buckets, not a max of summaries;
        # the ranking one line per operation (every replica exports the fleet's).
        quantiles = next(p for p in panels if "quantiles" in p["title"].lower())
        for expr in exprs[quantiles["id"]]:
            self.assertRegex(expr, r"^histogram_quantile\(0\.\d+, sum by \(le, service_name, span_name\)")
        ranking = next(p for p in panels if "ranking" in p["title"].lower())
        self.assertIn("max by (service_name, span_name) (spanprof_involvement_ratio", exprs[ranking["id"]][0])
        self.assertFalse([e for es in exprs.values() for e in es if "spanprof_duration_quantile_seconds" in e])
        titles = " ".join(p["title"] for p in panels).lower()
        for topic in ("resource time by state", "parallelism", "inclusive and exclusive",
                      "critical-path", "ranking", "quantiles", "pool utilization",
                      "cpu attribution", "received and refused"):
            self.assertIn(topic, titles)


if __name__ == "__main__":
    unittest.main()
