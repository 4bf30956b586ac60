package dev.spanprof.bench;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * A fleet query's latency (docs/fleet.md): {@code replicas} spanprof processes on loopback (small
 * heaps, the service jar), peers of each other, fed {@code traces} traces split by trace id,
 * whole, under {@code roots} root operations of {@code operations} child operations each (the
 * ranking's and the tail's series); then each question asked {@code repeats} times of one replica
 * for the fleet's answer and for its own ({@code scope=local}): the median and the 90th
 * percentile in ms. Prints the replicas' answers' sizes too.
 *
 * <p>{@code java -cp bench/target/benchmarks.jar dev.spanprof.bench.FleetLatency REPLICAS
 * [traces] [roots] [operations] [repeats]} (after {@code mvn -B -q install -DskipTests}; {@code
 * bash bench/fleet.sh} runs 3 and 10).
 */
public final class FleetLatency {

  private static final HttpClient HTTP = HttpClient.newBuilder()
      .connectTimeout(Duration.ofSeconds(10)).build();
  private static final Path JAR = Path.of("service", "target", "spanprof-all.jar");

  private FleetLatency() {}

  public static void main(String[] args) throws Exception {
    int replicas = Integer.parseInt(args[0]);
    int traces = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
    int roots = args.length > 2 ? Integer.parseInt(args[2]) : 20;
    int operations = args.length > 3 ? Integer.parseInt(args[3]) : 50;
    int repeats = args.length > 4 ? Integer.parseInt(args[4]) : 30;
    int[] ports = new int[replicas];
    StringBuilder peers = new StringBuilder();
    for (int i = 0; i < replicas; i++) {
      ports[i] = freePort();
      peers.append(i == 0 ? "" : ",").append("http://127.0.0.1:").append(ports[i]);
    }
    List<Process> processes = new ArrayList<>();
    try {
      for (int i = 0; i < replicas; i++) {
        processes.add(new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx160m",
            "-XX:+UseSerialGC",
            "-Dmicronaut.server.port=" + ports[i], "-Dgrpc.server.port=" + freePort(),
            "-Dspanprof.management.port=" + freePort(), "-Dspanprof.management.host=127.0.0.1",
            "-Dspanprof.assembly.trace-timeout=1s", "-Dspanprof.query.recent-traces=10000",
            "-Dspanprof.query.peers=" + peers,
            "-Dspanprof.query.peer-timeout=30s", "-jar", JAR.toString())
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start());
      }
      for (int port : ports) {
        await(() -> status(port) == 200, "a replica started");
      }
      int[] sent = feed(ports, traces, roots, operations);
      for (int i = 0; i < replicas; i++) {
        int port = ports[i];
        int expected = sent[i];
        await(() -> analysed(port) == expected, "every trace analysed");
      }
      String root = "&service=frontend&operation=" + encode("GET /root-0");
      // A trace the replica asked holds, so that its own answer finds it too.
      int held = traces - 1;
      while (replicaOf(held, replicas) != 0) {
        held--;
      }
      String[][] questions = {
          {"ranking", "/api/v1/ranking?top=50"},
          {"ranking of a root", "/api/v1/ranking?top=50" + root},
          {"tail roots", "/api/v1/tail"},
          {"tail of a root", "/api/v1/tail?quantile=0.9" + root},
          {"distribution", "/api/v1/distributions?service=backend&operation=" + encode("op-1")},
          {"slowest traces", "/api/v1/traces?order=slowest&limit=50"},
          {"a trace by id", "/api/v1/traces/" + traceId(held)},
      };
      System.out.printf("%d replicas, %d traces, %d roots × %d operations; ms, median / p90 of "
          + "%d%n", replicas, traces, roots, operations, repeats);
      System.out.printf("%-20s %18s %18s %20s%n", "question", "fleet", "one replica",
          "state bytes per peer");
      for (String[] question : questions) {
        String local = question[1] + (question[1].contains("?") ? "&" : "?") + "scope=local";
        long[] fleet = time(ports[0], question[1], repeats);
        long[] alone = time(ports[0], local, repeats);
        System.out.printf("%-20s %8.1f / %7.1f %8.1f / %7.1f %20s%n", question[0],
            fleet[0] / 1e6, fleet[1] / 1e6, alone[0] / 1e6, alone[1] / 1e6,
            stateBytes(ports[1], question[0]));
      }
    } finally {
      for (Process process : processes) {
        process.destroy();
      }
      for (Process process : processes) {
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      }
    }
  }

  /** The median and the 90th percentile of {@code repeats} GETs, after as many unmeasured. */
  private static long[] time(int port, String path, int repeats) throws Exception {
    long[] nanos = new long[repeats];
    for (int i = 0; i < 2 * repeats; i++) {
      long start = System.nanoTime();
      HttpResponse<byte[]> response = get(port, path, "application/json");
      long took = System.nanoTime() - start;
      if (response.statusCode() != 200
          || response.headers().firstValue("Spanprof-Missing-Peers").isPresent()) {
        throw new IllegalStateException(path + ": " + response.statusCode() + " "
            + response.headers().firstValue("Spanprof-Missing-Peers").orElse(""));
      }
      if (i >= repeats) {
        nanos[i - repeats] = took;
      }
    }
    Arrays.sort(nanos);
    return new long[] {nanos[repeats / 2], nanos[repeats * 9 / 10]};
  }

  /** What one peer sends for the ranking's and the tail's fleet answers, protobuf. */
  private static String stateBytes(int port, String question) throws Exception {
    String part = question.startsWith("ranking") ? "ranking" : question.startsWith("tail")
        ? "tail" : null;
    if (part == null) {
      return "";
    }
    return String.format("%,d", get(port, "/api/v1/state?scope=local&summed=true&part=" + part,
        "application/x-protobuf").body().length);
  }

  /** Sends every trace whole to the replica its trace id picks; returns how many each got. */
  private static int[] feed(int[] ports, int traces, int roots, int operations) throws Exception {
    SplittableRandom random = new SplittableRandom(7);
    int[] sent = new int[ports.length];
    // Per replica, the frontend's spans (the roots) and the backend's.
    List<List<List<Span>>> pending = new ArrayList<>();
    for (int i = 0; i < ports.length; i++) {
      pending.add(List.of(new ArrayList<>(), new ArrayList<>()));
    }
    long base = System.currentTimeMillis() * 1_000_000L;
    for (int t = 0; t < traces; t++) {
      int replica = replicaOf(t, ports.length);
      int rootIndex = random.nextInt(roots);
      long start = base + t * 1_000_000L;
      long end = start + 2_000_000L + random.nextLong(200_000_000L);
      List<List<Span>> spans = pending.get(replica);
      spans.get(0).add(span(t, 1, 0, "GET /root-" + rootIndex, start, end,
          random.nextInt(50) == 0));
      for (int c = 0; c < 4; c++) {
        long childStart = start + (end - start) * c / 4;
        spans.get(1).add(span(t, 2 + c, 1, "op-" + random.nextInt(operations), childStart,
            childStart + (end - start) / 4, false));
      }
      sent[replica]++;
      if (spans.get(1).size() >= 2_000) {
        post(ports[replica], spans);
      }
    }
    for (int i = 0; i < ports.length; i++) {
      if (!pending.get(i).get(0).isEmpty()) {
        post(ports[i], pending.get(i));
      }
    }
    return sent;
  }

  /** Which replica a trace goes to, by its id, as the Collector's loadbalancing exporter routes. */
  private static int replicaOf(int trace, int replicas) {
    return Math.floorMod(Long.hashCode(low(trace)), replicas);
  }

  private static long low(int trace) {
    return trace * 0x9E3779B97F4A7C15L;
  }

  private static String traceId(int trace) {
    return String.format("%016x%016x", 0xF1EE7L, low(trace));
  }

  private static Span span(int trace, long id, long parent, String name, long start, long end,
      boolean error) {
    Span.Builder span = Span.newBuilder()
        .setTraceId(ByteString.copyFrom(ByteBuffer.allocate(16).putLong(0xF1EE7L)
            .putLong(low(trace)).array()))
        .setSpanId(ByteString.copyFrom(ByteBuffer.allocate(8).putLong(id).array()))
        .setName(name).setStartTimeUnixNano(start).setEndTimeUnixNano(end);
    if (parent != 0) {
      span.setParentSpanId(ByteString.copyFrom(ByteBuffer.allocate(8).putLong(parent).array()));
    }
    if (error) {
      span.getStatusBuilder().setCode(io.opentelemetry.proto.trace.v1.Status.StatusCode
          .STATUS_CODE_ERROR);
    }
    return span.build();
  }

  /** Posts the frontend's and the backend's spans, whole traces, and empties both lists. */
  private static void post(int port, List<List<Span>> spans) throws Exception {
    ExportTraceServiceRequest request = ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(resourceSpans("frontend", spans.get(0)))
        .addResourceSpans(resourceSpans("backend", spans.get(1)))
        .build();
    spans.get(0).clear();
    spans.get(1).clear();
    HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + port + "/v1/traces"))
        .header("Content-Type", "application/x-protobuf")
        .POST(HttpRequest.BodyPublishers.ofByteArray(request.toByteArray())).build(),
        HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IllegalStateException("refused: " + response.body());
    }
  }

  private static ResourceSpans resourceSpans(String service, List<Span> spans) {
    return ResourceSpans.newBuilder()
        .setResource(Resource.newBuilder().addAttributes(KeyValue.newBuilder()
            .setKey("service.name").setValue(AnyValue.newBuilder().setStringValue(service))))
        .addScopeSpans(ScopeSpans.newBuilder().addAllSpans(spans))
        .build();
  }

  private static HttpResponse<byte[]> get(int port, String path, String accept) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .header("Accept", accept).timeout(Duration.ofSeconds(60)).build(),
        HttpResponse.BodyHandlers.ofByteArray());
  }

  private static int status(int port) {
    try {
      return get(port, "/api/v1/status?scope=local", "application/json").statusCode();
    } catch (Exception notYet) {
      return 0;
    }
  }

  private static long analysed(int port) {
    try {
      String body = new String(get(port, "/api/v1/status?scope=local", "application/json").body(),
          StandardCharsets.UTF_8);
      int at = body.indexOf("\"analysedTraces\":") + "\"analysedTraces\":".length();
      return Long.parseLong(body.substring(at, body.indexOf(',', at)));
    } catch (Exception notYet) {
      return -1;
    }
  }

  private static void await(Check check, String what) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    while (!check.holds()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("not within 5 minutes: " + what);
      }
      Thread.sleep(200);
    }
  }

  private interface Check {
    boolean holds() throws Exception;
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
