package dev.spanprof.ingest.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.protobuf.ByteString;
import dev.spanprof.testing.GrpcOtlpReceiver;
import dev.spanprof.testing.KafkaBroker;
import dev.spanprof.testing.SpanprofProcess;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.net.URI;
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
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kafka ingest against a real broker (KRaft, in its own JVM): a topic of 6 partitions
 * written as the Collector's Kafka exporter writes it with {@code partition_traces_by_id} (key:
 * the trace id in hex; value: an OTLP ExportTraceServiceRequest of that trace's spans, a trace's
 * spans in two records, children then root), three spanprof processes consuming it as one
 * group and forwarding to one next hop. Each step builds on the one before.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KafkaProcessTest {

  private static final String TOPIC = "otlp_spans";
  private static final int SPANS_PER_TRACE = 4;
  private static final Duration AWAIT = Duration.ofSeconds(120);
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @TempDir static Path brokerDirectory;
  private KafkaBroker broker;
  private GrpcOtlpReceiver nextHop;
  private KafkaProducer<byte[], byte[]> producer;
  private final SplittableRandom random = new SplittableRandom(99);
  /** Every span written: "traceHex/spanHex". */
  private final Set<String> written = ConcurrentHashMap.newKeySet();
  /** The partition each trace was written to. */
  private final Map<String, Integer> partitionOf = new ConcurrentHashMap<>();
  /** Four places for consumers, each with its HTTP port (peers of one another). */
  private final int[] httpPorts = new int[4];
  private final SpanprofProcess[] consumers = new SpanprofProcess[4];
  private int nextTrace;

  @BeforeAll
  void start() throws Exception {
    broker = KafkaBroker.start(brokerDirectory);
    broker.createTopic(TOPIC, 6);
    nextHop = GrpcOtlpReceiver.plaintext();
    producer = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
        ProducerConfig.ACKS_CONFIG, "all",
        ProducerConfig.LINGER_MS_CONFIG, "5",
        ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000"),
        new ByteArraySerializer(), new ByteArraySerializer());
    for (int i = 0; i < httpPorts.length; i++) {
      httpPorts[i] = SpanprofProcess.freePort();
    }
    for (int i = 0; i < 3; i++) {
      consumers[i] = startConsumer(i);
    }
    for (int i = 0; i < 3; i++) {
      consumers[i].awaitStarted();
    }
  }

  @AfterAll
  void stop() throws InterruptedException {
    for (SpanprofProcess consumer : consumers) {
      if (consumer != null) {
        consumer.kill();
      }
    }
    if (producer != null) {
      producer.close(Duration.ofSeconds(5));
    }
    if (nextHop != null) {
      nextHop.close();
    }
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  @Order(1)
  void everySpan_reachesTheNextHop_once() throws Exception {
    produce(1_500, 3_000);

    awaitEveryWrittenSpanForwarded();
    assertThat(duplicates()).isEmpty();
    // Spans read, then given up with a partition in a rebalance, were read again by its next
    // owner: each was forwarded once.
    assertThat(sum("spanprof_received_spans_total{transport=\"kafka\"}")
        - sum("spanprof_kafka_handed_over_spans_total")).isEqualTo(written.size());
    assertThat(sum("spanprof_late_spans_total")).isZero();
  }

  @Test
  @Order(2)
  void aPoisonRecord_isSkippedAndCounted_theRestGoesThrough() throws Exception {
    producer.send(new ProducerRecord<>(TOPIC, 2, "not-a-trace".getBytes(StandardCharsets.UTF_8),
        new byte[] {0x0a, 0x7f, 0x01})).get(30, TimeUnit.SECONDS);
    produce(300, 3_000);

    awaitEveryWrittenSpanForwarded();
    await("the poison record counted",
        () -> sum("spanprof_kafka_invalid_records_total") == 1);
    assertThat(duplicates()).isEmpty();
  }

  @Test
  @Order(3)
  void aConsumerKilledMidStream_losesNothing_andSplitsNoTrace() throws Exception {
    Set<Integer> owned = ownedPartitions(consumers[0]);
    assertThat(owned).isNotEmpty();
    Thread writer = new Thread(() -> produceUnchecked(4_000, 3_000));
    writer.start();
    await("the stream under way", () -> written.size() > 8_000 + 1_800 * SPANS_PER_TRACE);
    consumers[0].kill();
    consumers[0] = null;
    consumers[3] = startConsumer(3).awaitStarted();
    writer.join(TimeUnit.MINUTES.toMillis(2));

    awaitEveryWrittenSpanForwarded();
    assertThat(sum("spanprof_late_spans_total")).as("spans of traces analysed already").isZero();
    // What the killed consumer had forwarded since its last commit is forwarded again by the
    // partitions' next owners: only its partitions' traces, and at least what they count.
    Map<String, Integer> duplicates = duplicates();
    for (String span : duplicates.keySet()) {
      assertThat(partitionOf.get(span.substring(0, 32))).isIn(owned);
    }
    long twice = duplicates.values().stream().mapToLong(times -> times - 1).sum();
    assertThat(twice).isGreaterThanOrEqualTo((long) sum("spanprof_kafka_replayed_spans_total"));
  }

  @Test
  @Order(4)
  void allConsumersRestarted_rebuildTheWindowsAsTheyWere() throws Exception {
    awaitCount("every partition read", 0, () -> (long) sum("spanprof_kafka_lag_records"));
    SpanprofProcess asked = consumers[1];
    awaitCount("the fleet's ranking refreshed", written.size(), () -> rankingCount(asked));
    String ranking = get(asked, "/api/v1/ranking?top=1000");
    String tail = get(asked, "/api/v1/tail");
    String distribution = distribution(asked);
    int forwardedBefore = nextHop.requests().stream().mapToInt(KafkaProcessTest::spans).sum();

    for (int i = 1; i < 4; i++) {
      consumers[i].close();
      consumers[i] = null;
    }
    for (int i = 1; i < 4; i++) {
      consumers[i] = startConsumer(i);
    }
    for (int i = 1; i < 4; i++) {
      consumers[i].awaitStarted();
    }

    SpanprofProcess again = consumers[2];
    awaitCount("the windows rebuilt", written.size(), () -> rankingCount(again));
    String[] difference = {""};
    try {
      await("the ranking as it was", () -> (difference[0] = rankingDifference(
          get(again, "/api/v1/ranking?top=1000"), ranking)).isEmpty());
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + ": " + difference[0], e);
    }
    await("the tail as it was", () -> JsonParser.parseString(get(again, "/api/v1/tail"))
        .equals(JsonParser.parseString(tail)));
    String[] differs = {""};
    try {
      await("the distributions as they were",
          () -> (differs[0] = distributionDifference(distribution(again), distribution))
              .isEmpty());
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + ": " + differs[0], e);
    }
    // Handed over whole at shutdown: nothing was forwarded again.
    assertThat(nextHop.requests().stream().mapToInt(KafkaProcessTest::spans).sum())
        .isEqualTo(forwardedBefore);
    // Every span was read again (some twice: given up halfway by the first replica to start,
    // whose partitions the others then took).
    assertThat(sum("spanprof_kafka_window_rebuilt_spans_total"))
        .isGreaterThanOrEqualTo(written.size());
  }

  @Test
  @Order(5)
  void theBrokerDownFor20Seconds_consumersCatchUp_nothingLost() throws Exception {
    produce(500, 3_000);
    broker.stop();
    // Twenty seconds without a broker, every consumer alive and answering throughout.
    long upAgainNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    await("twenty seconds of the outage", () -> {
      for (SpanprofProcess consumer : consumers) {
        if (consumer != null) {
          assertThat(liveness(consumer)).as("liveness during the outage").isEqualTo(200);
        }
      }
      return System.nanoTime() >= upAgainNanos;
    });
    broker.startAgain();
    produce(500, 3_000);

    awaitEveryWrittenSpanForwarded();
  }

  private SpanprofProcess startConsumer(int place) throws IOException {
    StringBuilder peers = new StringBuilder();
    for (int port : httpPorts) {
      peers.append(peers.length() == 0 ? "" : ",").append("http://127.0.0.1:").append(port);
    }
    Map<String, String> properties = new HashMap<>();
    properties.put("spanprof.kafka.bootstrap-servers", broker.bootstrapServers());
    properties.put("spanprof.kafka.commit-interval", "200ms");
    properties.put("spanprof.kafka.properties.session.timeout.ms", "6000");
    properties.put("spanprof.kafka.properties.heartbeat.interval.ms", "1000");
    properties.put("spanprof.export.endpoint", "http://127.0.0.1:" + nextHop.port());
    properties.put("spanprof.export.flush-interval", "100ms");
    properties.put("spanprof.assembly.trace-timeout", "1s");
    properties.put("spanprof.assembly.sweep-interval", "200ms");
    properties.put("spanprof.ranking.refresh", "200ms");
    properties.put("spanprof.histogram.window", "5m");
    properties.put("spanprof.query.peers", peers.toString());
    properties.put("spanprof.query.peer-timeout", "2s");
    return SpanprofProcess.start("consumer-" + place, "192m", httpPorts[place], properties);
  }

  /** Writes {@code traces} traces at about {@code spansPerSecond}, each in two records. */
  private void produce(int traces, int spansPerSecond) throws Exception {
    long startNanos = System.nanoTime();
    long nanosPerTrace = 1_000_000_000L * SPANS_PER_TRACE / spansPerSecond;
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    for (int t = 0; t < traces; t++) {
      long dueNanos = startNanos + t * nanosPerTrace;
      long aheadNanos = dueNanos - System.nanoTime();
      if (aheadNanos > 0) {
        TimeUnit.NANOSECONDS.sleep(aheadNanos); // the pace of the stream, not synchronization
      }
      sent.addAll(writeTrace());
    }
    for (Future<RecordMetadata> record : sent) {
      record.get(2, TimeUnit.MINUTES);
    }
  }

  private void produceUnchecked(int traces, int spansPerSecond) {
    try {
      produce(traces, spansPerSecond);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** One trace: a root and three children, the children's record first, as two exports. */
  private List<Future<RecordMetadata>> writeTrace() {
    int number = nextTrace++;
    ByteBuffer id = ByteBuffer.allocate(16).putLong(random.nextLong()).putLong(number);
    byte[] traceId = id.array();
    String hex = HexFormat.of().formatHex(traceId);
    String root = new String[] {"GET /cart", "POST /order", "GET /search"}[number % 3];
    long startNanos = System.currentTimeMillis() * 1_000_000L;
    long durationNanos = 1_000_000L * (5 + random.nextInt(200));
    List<Span> children = new ArrayList<>();
    for (int c = 0; c < SPANS_PER_TRACE - 1; c++) {
      long childStart = startNanos + durationNanos * c / 4;
      children.add(span(traceId, 2 + c, 1, c == 1 ? "render" : "db.query", childStart,
          childStart + durationNanos / 5));
    }
    Span rootSpan = span(traceId, 1, 0, root, startNanos, startNanos + durationNanos);
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    for (List<Span> spans : List.of(children, List.of(rootSpan))) {
      ExportTraceServiceRequest request = ExportTraceServiceRequest.newBuilder()
          .addResourceSpans(ResourceSpans.newBuilder()
              .setResource(Resource.newBuilder().addAttributes(KeyValue.newBuilder()
                  .setKey("service.name").setValue(AnyValue.newBuilder()
                      .setStringValue(spans.size() == 1 ? "frontend" : "backend"))))
              .addScopeSpans(ScopeSpans.newBuilder().addAllSpans(spans)))
          .build();
      for (Span span : spans) {
        written.add(hex + "/" + HexFormat.of().formatHex(span.getSpanId().toByteArray()));
      }
      sent.add(producer.send(new ProducerRecord<>(TOPIC, hex.getBytes(StandardCharsets.UTF_8),
          request.toByteArray()), (metadata, failure) -> {
            if (metadata != null) {
              partitionOf.put(hex, metadata.partition());
            }
          }));
    }
    return sent;
  }

  private static Span span(byte[] traceId, long spanId, long parentId, String name,
      long startNanos, long endNanos) {
    Span.Builder span = Span.newBuilder().setTraceId(ByteString.copyFrom(traceId))
        .setSpanId(ByteString.copyFrom(ByteBuffer.allocate(8).putLong(spanId).array()))
        .setName(name).setStartTimeUnixNano(startNanos).setEndTimeUnixNano(endNanos);
    if (parentId != 0) {
      span.setParentSpanId(ByteString.copyFrom(ByteBuffer.allocate(8).putLong(parentId).array()));
    }
    return span.build();
  }

  /** How often the next hop received each span received more than once. */
  private Map<String, Integer> duplicates() {
    Map<String, Integer> times = new HashMap<>();
    for (ExportTraceServiceRequest request : nextHop.requests()) {
      for (ResourceSpans resource : request.getResourceSpansList()) {
        for (ScopeSpans scope : resource.getScopeSpansList()) {
          for (Span span : scope.getSpansList()) {
            times.merge(key(span), 1, Integer::sum);
          }
        }
      }
    }
    times.values().removeIf(count -> count == 1);
    return times;
  }

  private void awaitEveryWrittenSpanForwarded() {
    Set<String> forwarded = new HashSet<>();
    int[] seen = {0};
    await("every span written forwarded", () -> {
      List<ExportTraceServiceRequest> requests = nextHop.requests();
      for (ExportTraceServiceRequest request : requests.subList(seen[0], requests.size())) {
        for (ResourceSpans resource : request.getResourceSpansList()) {
          for (ScopeSpans scope : resource.getScopeSpansList()) {
            for (Span span : scope.getSpansList()) {
              forwarded.add(key(span));
            }
          }
        }
      }
      seen[0] = requests.size();
      return forwarded.containsAll(written);
    });
  }

  private static String key(Span span) {
    return HexFormat.of().formatHex(span.getTraceId().toByteArray()) + "/"
        + HexFormat.of().formatHex(span.getSpanId().toByteArray());
  }

  private static int spans(ExportTraceServiceRequest request) {
    return request.getResourceSpansList().stream().flatMap(r -> r.getScopeSpansList().stream())
        .mapToInt(ScopeSpans::getSpansCount).sum();
  }

  /** The partitions a consumer reads now (those it reports a lag for). */
  private static Set<Integer> ownedPartitions(SpanprofProcess consumer) {
    Set<Integer> owned = new TreeSet<>();
    for (String line : metrics(consumer).split("\n")) {
      if (line.startsWith("spanprof_kafka_lag_records{")) {
        String partition = line.substring(line.indexOf("partition=\"") + 11);
        owned.add(Integer.parseInt(partition.substring(0, partition.indexOf('"'))));
      }
    }
    return owned;
  }

  /** A series summed over every running consumer and every label set. */
  private double sum(String series) {
    double total = 0;
    for (SpanprofProcess consumer : consumers) {
      if (consumer == null) {
        continue;
      }
      for (String line : metrics(consumer).split("\n")) {
        boolean labelled = !series.contains("{") && line.startsWith(series + "{");
        if (line.startsWith(series + " ") || labelled) {
          total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        }
      }
    }
    return total;
  }

  private static String metrics(SpanprofProcess process) {
    try {
      return HTTP.send(HttpRequest.newBuilder(URI.create(process.managementUrl("/metrics")))
          .build(), HttpResponse.BodyHandlers.ofString()).body();
    } catch (IOException | InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  private static int liveness(SpanprofProcess process) {
    try {
      return HTTP.send(HttpRequest.newBuilder(URI.create(process.managementUrl("/health/liveness")))
          .build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException | InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String get(SpanprofProcess process, String path) {
    try {
      return HTTP.send(HttpRequest.newBuilder(URI.create(process.httpUrl(path)))
          .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString()).body();
    } catch (IOException | InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * How two rankings differ, "" when they do not: every operation with every count, sum, extreme
   * and name exactly, the figures derived in floating point (sums added in another order) to
   * 1e-9; in any order, since operations of equal involvement may change places.
   */
  private static String rankingDifference(String actualJson, String expectedJson) {
    Map<String, JsonObject> actual = rows(actualJson);
    Map<String, JsonObject> expected = rows(expectedJson);
    if (!actual.keySet().equals(expected.keySet())) {
      return "operations " + actual.keySet() + " against " + expected.keySet();
    }
    for (Map.Entry<String, JsonObject> row : expected.entrySet()) {
      JsonObject actualRow = actual.get(row.getKey());
      for (String key : row.getValue().keySet()) {
        if (key.equals("rank")) {
          continue; // the place among operations of equal involvement
        }
        JsonElement want = row.getValue().get(key);
        JsonElement got = actualRow.get(key);
        boolean derived = key.equals("involvement") || key.endsWith("StddevNs")
            || key.endsWith("MeanNs") || key.equals("criticalPathShare");
        boolean same = derived ? Math.abs(got.getAsDouble() - want.getAsDouble())
            <= 1e-9 * Math.max(1, Math.abs(want.getAsDouble())) : want.equals(got);
        if (!same) {
          return row.getKey() + " " + key + ": " + got + " against " + want;
        }
      }
    }
    return "";
  }

  private static Map<String, JsonObject> rows(String ranking) {
    Map<String, JsonObject> rows = new HashMap<>();
    for (JsonElement row : JsonParser.parseString(ranking).getAsJsonArray()) {
      JsonObject operation = row.getAsJsonObject();
      rows.put(operation.get("service").getAsString() + "/" + operation.get("name").getAsString(),
          operation);
    }
    return rows;
  }

  /** The calls the fleet's ranking counts: every span in the window, once. */
  private static long rankingCount(SpanprofProcess process) {
    long count = 0;
    for (JsonElement row : JsonParser.parseString(get(process, "/api/v1/ranking?top=1000"))
        .getAsJsonArray()) {
      count += row.getAsJsonObject().get("count").getAsLong();
    }
    return count;
  }

  /**
   * How two answers for one distribution differ, "" when they do not: in each view (since start,
   * and the window), the count, extremes and quantiles. (Exemplars name whichever trace a
   * replica kept, and the views' times are when they were asked.)
   */
  private static String distributionDifference(String actualJson, String expectedJson) {
    JsonObject actual = JsonParser.parseString(actualJson).getAsJsonObject();
    JsonObject expected = JsonParser.parseString(expectedJson).getAsJsonObject();
    for (String view : new String[] {"cumulative", "window"}) {
      for (String key : new String[] {"count", "minNs", "maxNs", "quantilesNs", "percentiles"}) {
        JsonElement want = expected.getAsJsonObject(view).get(key);
        JsonElement got = actual.getAsJsonObject(view).get(key);
        if (!String.valueOf(want).equals(String.valueOf(got))) {
          return view + " " + key + ": " + got + " against " + want;
        }
      }
    }
    return "";
  }

  private static String distribution(SpanprofProcess process) {
    JsonObject answer = JsonParser.parseString(get(process,
        "/api/v1/distributions?service=frontend&operation=GET%20/cart&kind=duration"))
        .getAsJsonObject();
    answer.remove("missingPeers");
    return answer.toString();
  }

  private String lags() {
    StringBuilder lags = new StringBuilder();
    for (SpanprofProcess consumer : consumers) {
      if (consumer != null) {
        for (String line : metrics(consumer).split("\n")) {
          if (line.startsWith("spanprof_kafka_lag_records{")
              || line.startsWith("spanprof_kafka_window_rebuilt_spans_total")
              || line.startsWith("spanprof_buffered_spans ")) {
            lags.append(consumer.httpPort()).append(' ').append(line).append("; ");
          }
        }
      }
    }
    return lags.toString();
  }

  private void awaitCount(String what, long expected, LongSupplier actual) {
    long[] last = {-1};
    try {
      await(what, () -> (last[0] = actual.getAsLong()) == expected);
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + ": " + last[0] + ", not " + expected
          + "; the consumers' lag: " + lags(), e);
    }
  }

  private static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + AWAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + AWAIT + ": " + what);
      }
      try {
        // How often to look again: each look asks processes over HTTP, on a machine they share.
        TimeUnit.MILLISECONDS.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while waiting for " + what);
      }
    }
  }
}
