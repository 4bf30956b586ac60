package dev.spanprof.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.spanprof.analysis.distribution.Distribution;
import dev.spanprof.golden.GoldenCases;
import dev.spanprof.ingest.OtlpTestSpans;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.TraceId;
import dev.spanprof.stages.DistributionService;
import dev.spanprof.testing.Ports;
import dev.spanprof.testing.TestTraffic;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Distributions over JSON after the fanout case was analysed; values in nanoseconds. */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Property(name = "test.time", value = "manual")
@Property(name = "test.profiles", value = "recording")
@Property(name = "spanprof.histogram.expected-interval.gateway/db", value = "2ns")
class DistributionsControllerTest {

  private final HttpClient http = HttpClient.newHttpClient();

  @Inject ApplicationContext context;
  @Inject DistributionService distributions;

  @BeforeAll
  void analyseTheFanoutCase() throws Exception {
    TestTraffic.postGolden(context, "fanout-self-time");
    TestTraffic.complete(context, TraceId.fromHex("42a78925f1ecee2d8aecc9722a15fd9b"));
  }

  @Test
  void duration_bothViewsWithQuantilesCurveAndDecodableHistogram() throws Exception {
    JsonObject answer = get("/api/v1/distributions?service=gateway&operation=" + encode("GET /order"));

    assertThat(answer.get("kind").getAsString()).isEqualTo("duration");
    assertThat(answer.get("cumulativeCorrected").isJsonNull()).isTrue();
    for (String view : new String[] {"cumulative", "window"}) {
      JsonObject figures = answer.getAsJsonObject(view);
      assertThat(figures.get("count").getAsLong()).isEqualTo(1);
      assertThat(figures.get("maxNs").getAsLong()).isEqualTo(100);
      assertThat(figures.getAsJsonObject("quantilesNs").get("0.99").getAsLong()).isEqualTo(100);
      assertThat(figures.getAsJsonArray("percentiles").get(0).getAsJsonObject()
          .get("percentile").getAsDouble()).isEqualTo(50);
      assertThat(figures.getAsJsonArray("percentiles").asList().get(
          figures.getAsJsonArray("percentiles").size() - 1).getAsJsonObject()
          .get("percentile").getAsDouble()).isEqualTo(99.9999);
      Histogram decoded = Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(
          Base64.getDecoder().decode(figures.get("histogram").getAsString())), 0);
      assertThat(decoded.getTotalCount()).isEqualTo(1);
    }
  }

  @Test
  void selfTimeAndCriticalPath_ofTheRoot() throws Exception {
    String root = "/api/v1/distributions?service=gateway&operation=" + encode("GET /order");

    assertThat(get(root + "&kind=self_time").getAsJsonObject("cumulative").get("maxNs").getAsLong())
        .isEqualTo(30);
    assertThat(get(root + "&kind=critical_path").getAsJsonObject("cumulative").get("maxNs").getAsLong())
        .isEqualTo(30);
  }

  @Test
  void expectedInterval_addsTheCorrectedViews() throws Exception {
    JsonObject answer = get("/api/v1/distributions?service=gateway&operation=db");

    // A 10 ns call expected every 2 ns: correction back-fills 8, 6, 4 and 2 ns.
    assertThat(answer.getAsJsonObject("cumulative").get("count").getAsLong()).isEqualTo(1);
    assertThat(answer.getAsJsonObject("cumulativeCorrected").get("count").getAsLong()).isEqualTo(5);
  }

  @Test
  void durationPercentile_rankOfADurationWithinItsOperation() {
    SpanRecord root = OtlpTestSpans.fromJson(GoldenCases.otlpJson("fanout-self-time")).get(0);
    // Ranks read what was last flushed, as the periodic window advance does.
    distributions.registry().all().values().forEach(Distribution::flush);

    assertThat(distributions.durationPercentile(root, 100)).isEqualTo(100);
    assertThat(distributions.durationPercentile(root, 50)).isZero();
  }

  @Test
  void errors_400ForBadKind_404ForUnknownOperation() throws Exception {
    HttpResponse<String> badKind = send("/api/v1/distributions?service=gateway&operation=db&kind=latency");
    HttpResponse<String> unknown = send("/api/v1/distributions?service=gateway&operation=nope");

    assertThat(badKind.statusCode()).isEqualTo(400);
    assertThat(badKind.body()).contains("kind must be duration, self_time or critical_path");
    assertThat(unknown.statusCode()).isEqualTo(404);
  }

  private JsonObject get(String path) throws Exception {
    HttpResponse<String> response = send(path);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JsonParser.parseString(response.body()).getAsJsonObject();
  }

  private HttpResponse<String> send(String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(Ports.of(context).httpUrl(path))).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
