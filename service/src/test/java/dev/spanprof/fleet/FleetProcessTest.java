package dev.spanprof.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.protobuf.ByteString;
import dev.spanprof.testing.SpanprofProcess;
import dev.spanprof.ui.Chromium;
import dev.spanprof.v1.GetRankingRequest;
import dev.spanprof.v1.GetTailRequest;
import dev.spanprof.v1.ProfileServiceGrpc;
import dev.spanprof.v1.RankedOperation;
import dev.spanprof.v1.Ranking;
import dev.spanprof.v1.Tail;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import java.io.IOException;
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
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Semantics.md §7 for real: three spanprof processes on loopback, each fed a third of the traces,
 * whole (as the Collector's {@code loadbalancing} exporter routes them, by trace id), answer as a
 * fourth fed all of them does — the ranking (π to 1e-9, every count and sum), the tail of every
 * root, every distribution's quantiles, the recent list, the pools' utilization and a trace by id,
 * through the HTTP API, gRPC and the overview page in Chromium. Then one replica is killed: the
 * answers name it and stay exact for the other two.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FleetProcessTest {

  private static final int TRACES = 3_000;
  private static final int PER_REQUEST = 100;
  private static final String[] ROOTS = {"GET /cart", "POST /order", "GET /search"};
  private static final String POOL = "worker/w1";
  private static final Duration AWAIT = Duration.ofSeconds(90);
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @TempDir static Path browserProfile;
  private SpanprofProcess reference;
  private final List<SpanprofProcess> replicas = new ArrayList<>();
  /** Per replica, the trace ids it was sent. */
  private final List<Set<String>> sentTo = List.of(new HashSet<>(), new HashSet<>(),
      new HashSet<>());

  @BeforeAll
  void startAndFeed() throws Exception {
    Map<String, String> common = new HashMap<>(Map.of(
        "spanprof.assembly.trace-timeout", "1s",
        "spanprof.ranking.refresh", "200ms",
        "spanprof.histogram.window", "5m",
        "spanprof.query.recent-traces", "5000",
        "spanprof.pools.capacity." + POOL, "4",
        "spanprof.pools.window", "2s",
        "spanprof.pools.lateness", "5s"));
    int[] ports = {SpanprofProcess.freePort(), SpanprofProcess.freePort(),
        SpanprofProcess.freePort()};
    StringBuilder peers = new StringBuilder();
    for (int port : ports) {
      peers.append(peers.length() == 0 ? "" : ",").append("http://127.0.0.1:").append(port);
    }
    reference = SpanprofProcess.start("reference", "192m", common);
    for (int i = 0; i < 3; i++) {
      Map<String, String> replica = new HashMap<>(common);
      replica.put("spanprof.query.peers", peers.toString());
      // Generous: a first query loads and compiles the code on a busy machine. A killed peer
      // refuses the connection at once.
      replica.put("spanprof.query.peer-timeout", "30s");
      replicas.add(SpanprofProcess.start("replica-" + i, "192m", ports[i], replica));
    }
    reference.awaitStarted();
    for (SpanprofProcess replica : replicas) {
      replica.awaitStarted();
    }

    // The spans start a few seconds ahead, in one pool window that turns final only after every
    // trace was analysed: no segment comes late on any process.
    long windowNanos = 2_000_000_000L;
    long baseNanos = (System.currentTimeMillis() * 1_000_000L / windowNanos + 3) * windowNanos;
    SplittableRandom random = new SplittableRandom(2026);
    List<List<Trace>> byReplica = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
    List<Trace> all = new ArrayList<>();
    for (int t = 0; t < TRACES; t++) {
      Trace trace = trace(t, baseNanos, random);
      all.add(trace);
      int replica = (int) Math.floorMod(trace.low, 3L);
      byReplica.get(replica).add(trace);
      sentTo.get(replica).add(trace.hexId());
    }
    for (int from = 0; from < all.size(); from += PER_REQUEST) {
      post(reference, request(all.subList(from, Math.min(all.size(), from + PER_REQUEST))));
    }
    for (int i = 0; i < 3; i++) {
      List<Trace> traces = byReplica.get(i);
      for (int from = 0; from < traces.size(); from += PER_REQUEST) {
        post(replicas.get(i), request(traces.subList(from, Math.min(traces.size(), from + PER_REQUEST))));
      }
    }
    await("every trace analysed", () -> analysedTraces(reference) == TRACES
        && analysedTraces(replicas.get(0)) == sentTo.get(0).size()
        && analysedTraces(replicas.get(1)) == sentTo.get(1).size()
        && analysedTraces(replicas.get(2)) == sentTo.get(2).size());
    await("every trace listed", () -> localTraceCount(reference) == TRACES
        && localTraceCount(replicas.get(0)) == sentTo.get(0).size()
        && localTraceCount(replicas.get(1)) == sentTo.get(1).size()
        && localTraceCount(replicas.get(2)) == sentTo.get(2).size());
    await("the pool window final everywhere", () -> hasPoolWindow(reference)
        && replicas.stream().allMatch(FleetProcessTest::hasPoolWindow));
    await("the reference's ranking refreshed", () ->
        rankingCount(get(reference, "/api/v1/ranking?top=1000")) == rankingCount(
            get(replicas.get(0), "/api/v1/ranking?top=1000")));
  }

  @AfterAll
  void stop() throws InterruptedException {
    for (SpanprofProcess replica : replicas) {
      replica.close();
    }
    if (reference != null) {
      reference.close();
    }
  }

  @Test
  @Order(1)
  void ranking_equalsTheReferences_overAllTracesAndEachRoot() throws Exception {
    assertSameRanking(get(replicas.get(0), "/api/v1/ranking?top=1000"),
        get(reference, "/api/v1/ranking?top=1000"));
    for (String root : ROOTS) {
      String query = "/api/v1/ranking?top=1000&service=frontend&operation=" + encode(root);
      assertSameRanking(get(replicas.get(1), query), get(reference, query));
    }
    // The call graph's calls: the same edges, counted and timed the same.
    String graph = "/api/v1/ranking/graph?service=frontend&operation=" + encode(ROOTS[1]);
    JsonElement calls = parse(get(replicas.get(2), graph)).getAsJsonObject().get("calls");
    assertThat(calls).isEqualTo(parse(get(reference, graph)).getAsJsonObject().get("calls"));
    assertThat(calls.getAsJsonArray()).isNotEmpty();
    // Each replica alone holds about a third.
    assertThat(rankingCount(get(replicas.get(2), "/api/v1/ranking?top=1000&scope=local")))
        .isLessThan(rankingCount(get(reference, "/api/v1/ranking?top=1000")) / 2);
  }

  @Test
  @Order(1)
  void status_addsUpEveryReplicasCounters() {
    JsonObject fleet = parse(get(replicas.get(2), "/api/v1/status")).getAsJsonObject();
    JsonObject single = parse(get(reference, "/api/v1/status")).getAsJsonObject();

    for (String counter : new String[] {"receivedSpans", "refusedSpans", "analysedTraces"}) {
      assertThat(fleet.get(counter)).as(counter).isEqualTo(single.get(counter));
    }
    assertThat(analysedTraces(replicas.get(2))).isEqualTo(sentTo.get(2).size());
  }

  /** With peers, every replica's gauge is the fleet's: one line per operation, not per replica. */
  @Test
  @Order(1)
  void involvementGauge_ofEveryReplica_isTheReferences() {
    String gauge = "spanprof_involvement_ratio{service_name=\"db\",span_name=\"db.query\"}";
    double expected = metric(reference, gauge);
    assertThat(expected).isBetween(0.1, 1.0);
    for (SpanprofProcess replica : replicas) {
      await("the replica's gauge refreshed", () ->
          Math.abs(metric(replica, gauge) - expected) < 1e-9);
    }
  }

  @Test
  @Order(1)
  void tail_ofEveryRoot_equalsTheReferences() throws Exception {
    assertThat(parse(get(replicas.get(2), "/api/v1/tail")))
        .isEqualTo(parse(get(reference, "/api/v1/tail")));
    for (String root : ROOTS) {
      for (String quantile : new String[] {"0.5", "0.9", "0.99"}) {
        String query = "/api/v1/tail?service=frontend&operation=" + encode(root) + "&quantile="
            + quantile;
        JsonObject fleet = parse(get(replicas.get(0), query)).getAsJsonObject();
        assertThat(fleet.remove("missingPeers").getAsJsonArray()).isEmpty();
        JsonObject single = parse(get(reference, query)).getAsJsonObject();
        single.remove("missingPeers");
        assertThat(fleet).isEqualTo(single);
      }
    }
  }

  @Test
  @Order(1)
  void distributions_ofEveryOperation_haveTheReferencesQuantiles() throws Exception {
    for (String[] operation : new String[][] {{"frontend", "GET /cart"},
        {"frontend", "POST /order"}, {"frontend", "GET /search"}, {"db", "db.query"},
        {"worker", "render"}}) {
      for (String kind : new String[] {"duration", "self_time", "critical_path"}) {
        String query = "/api/v1/distributions?service=" + operation[0] + "&operation="
            + encode(operation[1]) + "&kind=" + kind;
        JsonObject fleet = parse(get(replicas.get(1), query)).getAsJsonObject();
        JsonObject single = parse(get(reference, query)).getAsJsonObject();
        for (String view : new String[] {"cumulative", "window"}) {
          JsonObject fleetView = fleet.getAsJsonObject(view);
          JsonObject singleView = single.getAsJsonObject(view);
          assertThat(fleetView.get("count").getAsLong()).as("%s %s %s: %s", query, view,
                  kind, fleet.get("missingPeers")).isPositive()
              .isEqualTo(singleView.get("count").getAsLong());
          assertThat(fleetView.get("quantilesNs")).isEqualTo(singleView.get("quantilesNs"));
          assertThat(fleetView.get("percentiles")).isEqualTo(singleView.get("percentiles"));
          assertThat(fleetView.get("minNs")).isEqualTo(singleView.get("minNs"));
          assertThat(fleetView.get("maxNs")).isEqualTo(singleView.get("maxNs"));
        }
      }
    }
  }

  @Test
  @Order(1)
  void recentList_andATraceById_areTheReferences() throws Exception {
    assertThat(traceIds(get(replicas.get(0), "/api/v1/traces?limit=5000")))
        .isEqualTo(traceIds(get(reference, "/api/v1/traces?limit=5000"))).hasSize(TRACES);
    // The slowest, with ties by trace id: the same rows in the same order.
    assertThat(withoutArrival(parse(get(replicas.get(2),
        "/api/v1/traces?order=slowest&limit=50&error=true"))))
        .isEqualTo(withoutArrival(parse(get(reference,
            "/api/v1/traces?order=slowest&limit=50&error=true"))));
    // A root, an attribute of a span on one replica or another, a second page.
    String narrowed = "/api/v1/traces?order=slowest&limit=20&offset=20&service=frontend"
        + "&operation=" + URLEncoder.encode(ROOTS[0], StandardCharsets.UTF_8)
        + "&attr.thread.id=worker-2";
    assertThat(withoutArrival(parse(get(replicas.get(1), narrowed))))
        .isEqualTo(withoutArrival(parse(get(reference, narrowed))));
    assertThat(traceIds(get(reference, narrowed))).hasSize(20);
    String onTheThird = sentTo.get(2).iterator().next();
    JsonObject fleet = parse(get(replicas.get(0), "/api/v1/traces/" + onTheThird))
        .getAsJsonObject();
    JsonObject single = parse(get(reference, "/api/v1/traces/" + onTheThird)).getAsJsonObject();
    assertThat(withoutArrival(fleet)).isEqualTo(withoutArrival(single));
    assertThat(status(replicas.get(0), "/api/v1/traces/" + onTheThird + "?scope=local"))
        .isEqualTo(404);
  }

  @Test
  @Order(1)
  void pools_utilizationEqualsTheReferences_attributionPerReplica() throws Exception {
    HttpResponse<String> pools = response(replicas.get(1), "/api/v1/pools");
    assertThat(pools.headers().firstValue("Spanprof-Missing-Peers")).isEmpty();
    JsonObject fleet = window(parse(pools.body()));
    JsonObject single = window(parse(get(reference, "/api/v1/pools")));
    assertThat(fleet.get("startNanos")).isEqualTo(single.get("startNanos"));
    JsonObject fleetUtilization = fleet.getAsJsonObject("utilization");
    JsonObject singleUtilization = single.getAsJsonObject("utilization");
    assertThat(fleetUtilization.keySet()).isEqualTo(singleUtilization.keySet()).hasSizeGreaterThan(1);
    for (String category : singleUtilization.keySet()) {
      assertThat(fleetUtilization.get(category).getAsDouble())
          .isCloseTo(singleUtilization.get(category).getAsDouble(), within(1e-9));
    }
    assertThat(fleet.getAsJsonObject("attributionByReplica").keySet())
        .containsExactlyInAnyOrder(replicas.stream().map(SpanprofProcess::httpBase)
            .toArray(String[]::new));
  }

  @Test
  @Order(1)
  void grpc_answersTheFleets() throws Exception {
    ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1",
        replicas.get(2).grpcPort()).usePlaintext().build();
    try {
      ProfileServiceGrpc.ProfileServiceBlockingStub stub = ProfileServiceGrpc
          .newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
      Ranking ranking = stub.getRanking(GetRankingRequest.newBuilder().setTop(1000).build());
      JsonArray single = parse(get(reference, "/api/v1/ranking?top=1000")).getAsJsonArray();
      assertThat(ranking.getMissingPeersList()).isEmpty();
      assertThat(ranking.getOperationsCount()).isEqualTo(single.size());
      for (int i = 0; i < single.size(); i++) {
        RankedOperation row = ranking.getOperations(i);
        JsonObject expected = single.get(i).getAsJsonObject();
        assertThat(row.getName()).isEqualTo(expected.get("name").getAsString());
        assertThat(row.getCount()).isEqualTo(expected.get("count").getAsLong());
        assertThat(row.getInvolvement())
            .isCloseTo(expected.get("involvement").getAsDouble(), within(1e-9));
      }
      Tail tail = stub.getTail(GetTailRequest.getDefaultInstance());
      assertThat(tail.getRootsList()).extracting(root -> root.getTraces())
          .isEqualTo(parse(get(reference, "/api/v1/tail")).getAsJsonArray().asList().stream()
              .map(root -> root.getAsJsonObject().get("traces").getAsLong()).toList());
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  @Test
  @Order(1)
  void overviewPage_inChromium_showsTheFleetsRanking() throws Exception {
    ChromeDriver browser = Chromium.start(1400, 1000, browserProfile.resolve("fleet"));
    try {
      browser.get(replicas.get(1).httpUrl("/"));
      new WebDriverWait(browser, Duration.ofSeconds(30)).until(
          ExpectedConditions.presenceOfElementLocated(By.cssSelector("#ranking-table tbody tr")));
      List<WebElement> rows = browser.findElements(By.cssSelector("#ranking-table tbody tr"));
      JsonArray single = parse(get(reference, "/api/v1/ranking?top=50")).getAsJsonArray();
      assertThat(rows).hasSize(single.size());
      for (int i = 0; i < rows.size(); i++) {
        JsonObject expected = single.get(i).getAsJsonObject();
        assertThat(rows.get(i).getText())
            .contains(expected.get("name").getAsString())
            .contains(String.format("%,d", expected.get("count").getAsLong()));
      }
      assertThat(browser.findElements(By.id("missing-peers"))).isEmpty();
      Chromium.screenshot(browser, "fleet-overview");

      // The pools page: the fleet's utilization, and the CPU attribution of each replica alone.
      browser.get(replicas.get(1).httpUrl("/pools"));
      new WebDriverWait(browser, Duration.ofSeconds(30)).until(ExpectedConditions
          .presenceOfElementLocated(By.cssSelector("[data-chart='attributionNs']")));
      assertThat(browser.findElements(By.cssSelector("[data-chart='attributionNs']")))
          .extracting(chart -> chart.getAttribute("data-replica"))
          .containsExactlyInAnyOrder(replicas.stream().map(SpanprofProcess::httpBase)
              .toArray(String[]::new));
      assertThat(browser.findElement(By.cssSelector("[data-chart='utilization']"))
          .getAttribute("data-series")).contains("idle");
      Chromium.screenshot(browser, "fleet-pools");
    } finally {
      browser.quit();
    }
  }

  /** Last: one replica killed, the answers name it and hold the other two's traces exactly. */
  @Test
  @Order(2)
  void aReplicaKilled_isNamed_andTheRestStaysExact() throws Exception {
    long firstTwo = rankingCount(get(replicas.get(0), "/api/v1/ranking?top=1000&scope=local"))
        + rankingCount(get(replicas.get(1), "/api/v1/ranking?top=1000&scope=local"));
    Set<String> firstTwoTraces = new TreeSet<>(sentTo.get(0));
    firstTwoTraces.addAll(sentTo.get(1));
    SpanprofProcess killed = replicas.get(2);
    killed.kill();

    HttpResponse<String> ranking = response(replicas.get(0), "/api/v1/ranking?top=1000");
    assertThat(ranking.headers().firstValue("Spanprof-Missing-Peers"))
        .hasValueSatisfying(missing -> assertThat(missing).contains(killed.httpBase()));
    assertThat(rankingCount(ranking.body())).isEqualTo(firstTwo);
    assertThat(traceIds(get(replicas.get(1), "/api/v1/traces?limit=5000")))
        .isEqualTo(firstTwoTraces);
    JsonObject tail = parse(get(replicas.get(0),
        "/api/v1/tail?service=frontend&operation=" + encode(ROOTS[0]))).getAsJsonObject();
    assertThat(tail.getAsJsonArray("missingPeers").get(0).getAsString())
        .contains(killed.httpBase());

    ChromeDriver browser = Chromium.start(1400, 1000, browserProfile.resolve("killed"));
    try {
      browser.get(replicas.get(0).httpUrl("/"));
      WebElement banner = new WebDriverWait(browser, Duration.ofSeconds(30)).until(
          ExpectedConditions.presenceOfElementLocated(By.id("missing-peers")));
      assertThat(banner.getText()).contains(killed.httpBase());
      Chromium.screenshot(browser, "fleet-missing-peer");
    } finally {
      browser.quit();
    }
  }

  /** One trace: its id, and its spans by service. */
  private record Trace(long high, long low, List<Span> frontend, List<Span> db,
      List<Span> worker) {

    String hexId() {
      return String.format("%016x%016x", high, low);
    }
  }

  /**
   * A root of one of three operations on the frontend; one to three queries on the db, some
   * failing; a render on one of four threads of the worker pool.
   */
  private static Trace trace(int t, long baseNanos, SplittableRandom random) {
    long high = 0x5EED_0000_0000_0000L | t;
    long low = random.nextLong();
    String root = ROOTS[random.nextInt(ROOTS.length)];
    long start = baseNanos + random.nextLong(1_000_000_000L);
    long queryNanos = 1_000_000L + random.nextLong(20_000_000L);
    int queries = 1 + random.nextInt(3);
    long renderNanos = 500_000L + random.nextLong(5_000_000L);
    long end = start + queries * queryNanos + renderNanos + 100_000L;
    List<Span> frontend = List.of(span(high, low, 1, 0, root, start, end, "http-1", false));
    List<Span> db = new ArrayList<>();
    long at = start + 50_000L;
    for (int q = 0; q < queries; q++) {
      db.add(span(high, low, 10 + q, 1, "db.query", at, at + queryNanos, "conn-" + q,
          random.nextInt(20) == 0));
      at += queryNanos;
    }
    List<Span> worker = List.of(span(high, low, 20, 1, "render", at, at + renderNanos,
        "worker-" + random.nextInt(4), false));
    return new Trace(high, low, frontend, db, worker);
  }

  private static Span span(long high, long low, long id, long parent, String name, long start,
      long end, String thread, boolean error) {
    Span.Builder span = Span.newBuilder()
        .setTraceId(ByteString.copyFrom(ByteBuffer.allocate(16).putLong(high).putLong(low).array()))
        .setSpanId(ByteString.copyFrom(ByteBuffer.allocate(8).putLong(id).array()))
        .setName(name)
        .setKind(Span.SpanKind.SPAN_KIND_INTERNAL)
        .setStartTimeUnixNano(start)
        .setEndTimeUnixNano(end)
        .addAttributes(attribute("thread.id", thread));
    if (parent != 0) {
      span.setParentSpanId(ByteString.copyFrom(ByteBuffer.allocate(8).putLong(parent).array()));
    }
    if (error) {
      span.setStatus(Status.newBuilder().setCode(Status.StatusCode.STATUS_CODE_ERROR)
          .setMessage("deadlock detected"));
    }
    return span.build();
  }

  private static ExportTraceServiceRequest request(List<Trace> traces) {
    ScopeSpans.Builder frontend = ScopeSpans.newBuilder();
    ScopeSpans.Builder db = ScopeSpans.newBuilder();
    ScopeSpans.Builder worker = ScopeSpans.newBuilder();
    for (Trace trace : traces) {
      frontend.addAllSpans(trace.frontend());
      db.addAllSpans(trace.db());
      worker.addAllSpans(trace.worker());
    }
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(resourceSpans("frontend", "f1", frontend))
        .addResourceSpans(resourceSpans("db", "d1", db))
        .addResourceSpans(resourceSpans("worker", "w1", worker))
        .build();
  }

  private static ResourceSpans resourceSpans(String service, String instance,
      ScopeSpans.Builder spans) {
    return ResourceSpans.newBuilder()
        .setResource(Resource.newBuilder()
            .addAttributes(attribute("service.name", service))
            .addAttributes(attribute("service.instance.id", instance)))
        .addScopeSpans(spans)
        .build();
  }

  private static KeyValue attribute(String key, String value) {
    return KeyValue.newBuilder().setKey(key)
        .setValue(AnyValue.newBuilder().setStringValue(value)).build();
  }

  private static void post(SpanprofProcess process, ExportTraceServiceRequest request)
      throws IOException, InterruptedException {
    HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(
            URI.create(process.httpUrl("/v1/traces")))
        .header("Content-Type", "application/x-protobuf")
        .POST(HttpRequest.BodyPublishers.ofByteArray(request.toByteArray())).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
  }

  private static HttpResponse<String> response(SpanprofProcess process, String path) {
    try {
      return HTTP.send(HttpRequest.newBuilder(URI.create(process.httpUrl(path)))
          .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new IllegalStateException(path + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static String get(SpanprofProcess process, String path) {
    HttpResponse<String> response = response(process, path);
    assertThat(response.statusCode()).as("%s: %s", path, response.body()).isEqualTo(200);
    return response.body();
  }

  private static int status(SpanprofProcess process, String path) {
    return response(process, path).statusCode();
  }

  private static JsonElement parse(String json) {
    return JsonParser.parseString(json);
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private static int localTraceCount(SpanprofProcess process) {
    return parse(get(process, "/api/v1/traces?scope=local&limit=5000")).getAsJsonArray().size();
  }

  /** A sample's value on the management port's /metrics. */
  private static double metric(SpanprofProcess process, String series) {
    try {
      String text = HTTP.send(HttpRequest.newBuilder(URI.create(process.managementUrl("/metrics")))
          .build(), HttpResponse.BodyHandlers.ofString()).body();
      for (String line : text.split("\n")) {
        if (line.startsWith(series + " ")) {
          return Double.parseDouble(line.substring(series.length() + 1).trim().split(" ")[0]);
        }
      }
      return Double.NaN;
    } catch (IOException | InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  private static long analysedTraces(SpanprofProcess process) {
    return parse(get(process, "/api/v1/status?scope=local")).getAsJsonObject()
        .get("analysedTraces").getAsLong();
  }

  /** Whether the process's pool has a final window (a pool is listed once it has spans). */
  private static boolean hasPoolWindow(SpanprofProcess process) {
    JsonArray pools = parse(get(process, "/api/v1/pools?scope=local")).getAsJsonArray();
    return !pools.isEmpty()
        && !pools.get(0).getAsJsonObject().getAsJsonArray("windows").isEmpty();
  }


  /** The only window of the only pool: every span fell in one. */
  private static JsonObject window(JsonElement pools) {
    assertThat(pools.getAsJsonArray()).hasSize(1);
    JsonObject pool = pools.getAsJsonArray().get(0).getAsJsonObject();
    assertThat(pool.get("pool").getAsString()).isEqualTo(POOL);
    assertThat(pool.getAsJsonArray("windows")).hasSize(1);
    return pool.getAsJsonArray("windows").get(0).getAsJsonObject();
  }

  private static long rankingCount(String ranking) {
    long count = 0;
    for (JsonElement row : parse(ranking).getAsJsonArray()) {
      count += row.getAsJsonObject().get("count").getAsLong();
    }
    return count;
  }

  private static Set<String> traceIds(String list) {
    Set<String> ids = new TreeSet<>();
    for (JsonElement row : parse(list).getAsJsonArray()) {
      ids.add(row.getAsJsonObject().get("traceId").getAsString());
    }
    return ids;
  }

  /** The arrival is each process's own clock reading; everything else must be equal. */
  private static JsonElement withoutArrival(JsonElement json) {
    if (json.isJsonObject()) {
      JsonObject copy = new JsonObject();
      json.getAsJsonObject().entrySet().stream()
          .filter(entry -> !entry.getKey().equals("arrivalNanos"))
          .forEach(entry -> copy.add(entry.getKey(), withoutArrival(entry.getValue())));
      return copy;
    }
    if (json.isJsonArray()) {
      JsonArray copy = new JsonArray();
      json.getAsJsonArray().forEach(element -> copy.add(withoutArrival(element)));
      return copy;
    }
    return json;
  }

  /** Rows in the same order, every count, sum, min, max and quantile equal, π to 1e-9. */
  private static void assertSameRanking(String fleetJson, String singleJson) {
    JsonArray fleet = parse(fleetJson).getAsJsonArray();
    JsonArray single = parse(singleJson).getAsJsonArray();
    assertThat(fleet.size()).isEqualTo(single.size()).isPositive();
    for (int i = 0; i < single.size(); i++) {
      JsonObject actual = fleet.get(i).getAsJsonObject();
      JsonObject expected = single.get(i).getAsJsonObject();
      for (String key : expected.keySet()) {
        if (key.equals("involvement") || key.endsWith("StddevNs") || key.endsWith("MeanNs")
            || key.equals("criticalPathShare")) {
          assertThat(actual.get(key).getAsDouble()).as("%s of row %d", key, i)
              .isCloseTo(expected.get(key).getAsDouble(), within(1e-9 * Math.max(1,
                  Math.abs(expected.get(key).getAsDouble()))));
        } else {
          assertThat(actual.get(key)).as("%s of row %d", key, i).isEqualTo(expected.get(key));
        }
      }
    }
  }

  /** Polls the processes (each poll an HTTP round trip) until the condition holds. */
  private static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + AWAIT.toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("%s within %s", what, AWAIT).isLessThan(deadline);
      Thread.onSpinWait();
    }
  }
}
