package dev.spanprof.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.protobuf.ByteString;
import dev.spanprof.assembly.ManualTimeSource;
import dev.spanprof.assembly.TraceAssembler;
import dev.spanprof.span.TraceId;
import dev.spanprof.stages.RankingService;
import dev.spanprof.testing.Otlp;
import dev.spanprof.testing.Ports;
import dev.spanprof.testing.RecordingProfiles;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.Span;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The ranking end to end: fleet traces over OTLP/HTTP (a cheap dispatcher, nine fast workers,
 * one slow worker on the critical path), the ranking recomputed, queried as JSON and scraped.
 */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Property(name = "test.time", value = "manual")
@Property(name = "test.profiles", value = "recording")
class RankingControllerTest {

  private final HttpClient http = HttpClient.newHttpClient();

  @Inject ApplicationContext context;
  @Inject ManualTimeSource time;
  @Inject TraceAssembler assembler;
  @Inject RecordingProfiles analysed;
  @Inject RankingService ranking;

  @BeforeAll
  void sendFleetTraces() throws Exception {
    List<TraceId> traces = new ArrayList<>();
    for (int t = 1; t <= 5; t++) {
      TraceId trace = new TraceId(0xF1, t);
      traces.add(trace);
      List<Span.Builder> spans = new ArrayList<>();
      spans.add(span(trace, 1, 0, "dispatch", "d", 0, 1000));
      for (int w = 0; w < 9; w++) {
        spans.add(span(trace, 10 + w, 1, "fast", "w" + w, 0, 100));
      }
      spans.add(span(trace, 20, 1, "slow", "s", 0, 990));
      HttpResponse<String> response = http.send(
          HttpRequest.newBuilder(URI.create(Ports.of(context).httpUrl("/v1/traces")))
              .header("Content-Type", "application/x-protobuf")
              .POST(HttpRequest.BodyPublishers.ofByteArray(
                  Otlp.request("fleet", spans.toArray(Span.Builder[]::new)).toByteArray()))
              .build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).isEqualTo(200);
    }
    time.advance(Duration.ofSeconds(5));
    assembler.sweep();
    for (TraceId trace : traces) {
      analysed.await(trace, Duration.ofSeconds(30));
    }
    ranking.refresh();
  }

  @Test
  void ranking_byInvolvement_dispatcherFirstAndFlagged() throws Exception {
    JsonArray rows = getArray("/api/v1/ranking?top=2");

    assertThat(rows).hasSize(2);
    JsonObject first = rows.get(0).getAsJsonObject();
    assertThat(first.get("service").getAsString()).isEqualTo("fleet");
    assertThat(first.get("name").getAsString()).isEqualTo("dispatch");
    assertThat(first.get("rank").getAsInt()).isEqualTo(1);
    assertThat(first.get("count").getAsLong()).isEqualTo(5);
    assertThat(first.get("selfTimeMeanNs").getAsDouble()).isEqualTo(10);
    assertThat(first.get("involvement").getAsDouble()).isGreaterThan(0.4);
    assertThat(first.getAsJsonArray("flags").toString()).isEqualTo("[\"dispatcher\"]");
    // HdrHistogram at 2 significant digits reports the top of 1000's bucket; a quantile is
    // clamped to the recorded maximum, which every span of the dispatcher has.
    assertThat(first.get("durationP50Ns").getAsLong()).isEqualTo(1000);
    assertThat(first.get("durationP99Ns").getAsLong()).isEqualTo(1000);
  }

  @Test
  void ranking_byCriticalPath_slowWorkerFirstAndFlagged() throws Exception {
    JsonObject first = getArray("/api/v1/ranking?top=1&sort=critical_path").get(0).getAsJsonObject();

    assertThat(first.get("name").getAsString()).isEqualTo("slow");
    assertThat(first.get("criticalPathShare").getAsDouble()).isEqualTo(0.99);
    assertThat(first.getAsJsonArray("flags").toString()).isEqualTo("[\"bottleneck\"]");
  }

  @Test
  void edges_ofTheDispatcher_listsItsCalleesWithConditionalFigures() throws Exception {
    JsonObject edges = JsonParser.parseString(get("/api/v1/ranking/edges?service=fleet&operation="
        + URLEncoder.encode("dispatch", StandardCharsets.UTF_8)).body()).getAsJsonObject();

    assertThat(edges.getAsJsonArray("callers")).isEmpty();
    assertThat(edges.getAsJsonArray("callees")).hasSize(2);
    JsonObject fast = edges.getAsJsonArray("callees").get(0).getAsJsonObject();
    assertThat(fast.get("name").getAsString()).isEqualTo("fast");
    assertThat(fast.get("count").getAsLong()).isEqualTo(45);
    assertThat(fast.get("calleeDurationMeanNs").getAsDouble()).isEqualTo(100);
  }

  @Test
  void badQueries_400WithMessage() throws Exception {
    assertThat(get("/api/v1/ranking?sort=fastest").body())
        .isEqualTo("{\"error\":\"sort must be involvement, critical_path or self_time, got 'fastest'\"}");
    assertThat(get("/api/v1/ranking?top=0").statusCode()).isEqualTo(400);
    assertThat(get("/api/v1/ranking/edges?service=fleet").statusCode()).isEqualTo(400);
    assertThat(get("/api/v1/ranking?service=fleet").body())
        .contains("service and operation name a root operation together");
  }

  @Test
  void ranking_overOneRootOperation_sharesSumToOne() throws Exception {
    JsonArray rows = getArray("/api/v1/ranking?sort=critical_path&service=fleet&operation=dispatch");
    JsonArray none = getArray("/api/v1/ranking?service=fleet&operation=slow");

    assertThat(rows).hasSize(3);
    double shares = 0;
    for (int i = 0; i < rows.size(); i++) {
      shares += rows.get(i).getAsJsonObject().get("criticalPathShare").getAsDouble();
      assertThat(rows.get(i).getAsJsonObject().get("errorCount").getAsLong()).isZero();
    }
    assertThat(shares).isCloseTo(1, org.assertj.core.data.Offset.offset(1e-12));
    assertThat(none).as("slow is no trace's root").isEmpty();
  }

  @Test
  void metrics_involvementGaugeForTheTopOperations() throws Exception {
    String scrape = http.send(HttpRequest.newBuilder(
            URI.create(Ports.of(context).managementUrl("/metrics"))).build(),
        HttpResponse.BodyHandlers.ofString()).body();

    assertThat(scrape).containsPattern(
        "spanprof_involvement_ratio\\{service_name=\"fleet\",span_name=\"dispatch\"} 0\\.4\\d+");
  }

  private JsonArray getArray(String path) throws Exception {
    HttpResponse<String> response = get(path);
    assertThat(response.statusCode()).isEqualTo(200);
    return JsonParser.parseString(response.body()).getAsJsonArray();
  }

  private HttpResponse<String> get(String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(Ports.of(context).httpUrl(path))).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static Span.Builder span(TraceId trace, long id, long parent, String name, String thread,
      long start, long end) {
    Span.Builder span = Otlp.span(trace, id)
        .setName(name)
        .setStartTimeUnixNano(start)
        .setEndTimeUnixNano(end)
        .addAttributes(KeyValue.newBuilder().setKey("thread.id")
            .setValue(AnyValue.newBuilder().setStringValue(thread)));
    if (parent != 0) {
      span.setParentSpanId(ByteString.copyFrom(ByteBuffer.allocate(8).putLong(parent).array()));
    }
    return span;
  }
}
