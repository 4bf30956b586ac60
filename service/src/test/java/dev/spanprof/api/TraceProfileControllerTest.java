package dev.spanprof.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.spanprof.assembly.ManualTimeSource;
import dev.spanprof.assembly.TraceAssembler;
import dev.spanprof.golden.GoldenCases;
import dev.spanprof.golden.JsonMatch;
import dev.spanprof.span.TraceId;
import dev.spanprof.testing.Meters;
import dev.spanprof.testing.Ports;
import dev.spanprof.testing.RecordingProfiles;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** End to end: POST the golden OTLP/JSON, let the trace complete, GET its profile. */
@MicronautTest
@Property(name = "test.time", value = "manual")
@Property(name = "test.profiles", value = "recording")
class TraceProfileControllerTest {

  private final HttpClient http = HttpClient.newHttpClient();

  @Inject ApplicationContext context;
  @Inject ManualTimeSource time;
  @Inject TraceAssembler assembler;
  @Inject RecordingProfiles analysed;
  @Inject MeterRegistry registry;

  @ParameterizedTest
  @MethodSource("dev.spanprof.golden.GoldenCases#names")
  void get_afterPostingGoldenCase_servesTheExpectedProfile(String name) throws Exception {
    String expected = new String(GoldenCases.expectedJson(name), StandardCharsets.UTF_8);
    TraceId traceId = TraceId.fromHex(expected.replaceAll("(?s).*\"traceId\": \"([0-9a-f]{32})\".*", "$1"));
    assertThat(post(GoldenCases.otlpJson(name)).statusCode()).isEqualTo(200);
    time.advance(Duration.ofSeconds(5));
    assembler.sweep();
    analysed.await(traceId, Duration.ofSeconds(30));

    HttpResponse<String> response = get("/api/v1/traces/" + traceId.toHex());

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
    JsonMatch.assertMatches(expected, response.body());
  }

  /**
   * The fanout case's counters, in seconds: span time by operation, resource time by service,
   * pool and state, per-state trace time, self time and critical path.
   */
  @Test
  void counters_afterAnalysis_carryTheProfileInSeconds() throws Exception {
    Meters meters = new Meters(registry);
    // The fanout case under a trace id of its own, so no other test has completed it already.
    String golden = "42a78925f1ecee2d8aecc9722a15fd9b";
    TraceId traceId = TraceId.fromHex("c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0");
    byte[] body = new String(GoldenCases.otlpJson("fanout-self-time"), StandardCharsets.UTF_8)
        .replace(golden, traceId.toHex()).getBytes(StandardCharsets.UTF_8);
    double spanTime = meters.count("spanprof.span.time", "service_name", "gateway", "span_name", "GET /order");
    double running = meters.count("spanprof.resource.time", "service_name", "gateway", "pool", "gateway/g1", "state", "running");
    double waitNet = meters.count("spanprof.trace.state", "state", "wait.net", "mode", "inclusive");
    double waitNetExclusive = meters.count("spanprof.trace.state", "state", "wait.net", "mode", "exclusive");
    double self = meters.count("spanprof.self.time", "service_name", "gateway", "span_name", "audit");
    double critical = meters.count("spanprof.critical.path", "service_name", "inventory", "span_name", "reserve");

    post(body);
    time.advance(Duration.ofSeconds(5));
    assembler.sweep();
    analysed.await(traceId, Duration.ofSeconds(30));

    double nanos = 1e-9;
    assertThat(meters.count("spanprof.span.time", "service_name", "gateway", "span_name", "GET /order") - spanTime)
        .isCloseTo(100 * nanos, org.assertj.core.data.Offset.offset(1e-15));
    // gateway/g1: GET /order 40 + audit 40 running (ghost and inventory are other pools).
    assertThat(meters.count("spanprof.resource.time", "service_name", "gateway", "pool", "gateway/g1", "state", "running") - running)
        .isCloseTo(80 * nanos, org.assertj.core.data.Offset.offset(1e-15));
    assertThat(meters.count("spanprof.trace.state", "state", "wait.net", "mode", "inclusive") - waitNet)
        .isCloseTo(50 * nanos, org.assertj.core.data.Offset.offset(1e-15));
    assertThat(meters.count("spanprof.trace.state", "state", "wait.net", "mode", "exclusive") - waitNetExclusive)
        .isCloseTo(5 * nanos, org.assertj.core.data.Offset.offset(1e-15));
    assertThat(meters.count("spanprof.self.time", "service_name", "gateway", "span_name", "audit") - self)
        .isCloseTo(40 * nanos, org.assertj.core.data.Offset.offset(1e-15));
    assertThat(meters.count("spanprof.critical.path", "service_name", "inventory", "span_name", "reserve") - critical)
        .isCloseTo(40 * nanos, org.assertj.core.data.Offset.offset(1e-15));
    String scrape = http.send(HttpRequest.newBuilder(URI.create(Ports.of(context).managementUrl("/metrics"))).build(),
        HttpResponse.BodyHandlers.ofString()).body();
    assertThat(scrape)
        .contains("spanprof_span_time_seconds_total{service_name=\"gateway\",span_name=\"GET /order\"}")
        .contains("spanprof_resource_time_seconds_total{pool=\"gateway/g1\",service_name=\"gateway\",state=\"running\"}")
        .contains("spanprof_trace_state_seconds_total{mode=\"exclusive\",state=\"wait.net\"}")
        .contains("spanprof_self_time_seconds_total{service_name=\"gateway\",span_name=\"audit\"}")
        .contains("spanprof_critical_path_seconds_total{service_name=\"inventory\",span_name=\"reserve\"}")
        .contains("# TYPE spanprof_trace_spans histogram")
        .contains("spanprof_trace_spans_bucket{le=\"10.0\"}");
  }

  @Test
  void list_afterAnalysis_showsTheTraceWithItsTtcAndRefusesAMalformedFilter() throws Exception {
    TraceId traceId = TraceId.fromHex("c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1");
    byte[] body = new String(GoldenCases.otlpJson("fanout-self-time"), StandardCharsets.UTF_8)
        .replace("42a78925f1ecee2d8aecc9722a15fd9b", traceId.toHex())
        .getBytes(StandardCharsets.UTF_8);
    post(body);
    time.advance(Duration.ofSeconds(5));
    assembler.sweep();
    analysed.await(traceId, Duration.ofSeconds(30));

    HttpResponse<String> list = get("/api/v1/traces?service=gateway&operation=GET%20/order"
        + "&minTtcNs=100&order=slowest&limit=500");
    HttpResponse<String> malformed = get("/api/v1/traces?minTtcNs=soon");

    assertThat(list.statusCode()).isEqualTo(200);
    assertThat(list.body()).contains("{\"traceId\":\"" + traceId.toHex()
        + "\",\"rootService\":\"gateway\",\"rootOperation\":\"GET /order\"");
    long expectedTtcNs = JsonParser.parseString(new String(
        GoldenCases.expectedJson("fanout-self-time"), StandardCharsets.UTF_8))
        .getAsJsonObject().get("ttcNs").getAsLong();
    assertThat(list.body()).contains("\"ttcNs\":" + expectedTtcNs + ",");
    assertThat(malformed.statusCode()).isEqualTo(400);
    assertThat(malformed.body())
        .isEqualTo("{\"error\":\"minTtcNs must be an integer, got 'soon'\"}");
  }

  /**
   * Errors and orphans as semantics.md §2 has them: a bank call failing with a 503, a span whose
   * parent never arrived; the profile and the list say so, and the list filters on errors.
   */
  @Test
  void errorsAndOrphans_inTheProfileAndTheList() throws Exception {
    String traceId = "e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1";
    String json = ("{'resourceSpans':[{'resource':{'attributes':[{'key':'service.name','value':"
        + "{'stringValue':'shop'}}]},'scopeSpans':[{'spans':["
        + "{'traceId':'T','spanId':'0000000000000001','name':'pay','kind':2,"
        + "'startTimeUnixNano':'1000','endTimeUnixNano':'9000'},"
        + "{'traceId':'T','spanId':'0000000000000002','parentSpanId':'0000000000000001',"
        + "'name':'bank','kind':3,'startTimeUnixNano':'2000','endTimeUnixNano':'8000',"
        + "'status':{'code':2,'message':'503 Service Unavailable'}},"
        + "{'traceId':'T','spanId':'0000000000000003','parentSpanId':'00000000000000ff',"
        + "'name':'audit','startTimeUnixNano':'3000','endTimeUnixNano':'4000'}]}]}]}")
        .replace('\'', '"').replace("T", traceId);

    JsonObject profile = analysedProfile(json, traceId);
    String errors = get("/api/v1/traces?error=true&limit=500").body();
    HttpResponse<String> bogus = get("/api/v1/traces?completion=bogus");

    assertThat(profile.get("errorCount").getAsInt()).isEqualTo(1);
    assertThat(profile.get("orphanCount").getAsInt()).isEqualTo(1);
    assertThat(profile.getAsJsonObject("summary").get("complete").getAsBoolean()).isFalse();
    JsonObject bank = profile.getAsJsonArray("spans").get(1).getAsJsonObject();
    assertThat(bank.get("status").getAsString()).isEqualTo("ERROR");
    assertThat(bank.get("statusMessage").getAsString()).isEqualTo("503 Service Unavailable");
    JsonObject audit = profile.getAsJsonArray("spans").get(2).getAsJsonObject();
    assertThat(audit.get("orphan").getAsBoolean()).isTrue();
    assertThat(audit.get("status").getAsString()).isEqualTo("UNSET");
    assertThat(errors).contains("\"traceId\":\"" + traceId + "\"")
        .doesNotContain("c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1");
    assertThat(bogus.statusCode()).isEqualTo(400);
    assertThat(bogus.body()).contains("completion must be one of");
  }

  /**
   * What the application sent beside the analysis's inputs comes back with the profile: span
   * attributes of every type, an exception event, a link, the resource's attributes; and the
   * list finds the trace by an attribute of a span or of its resource, and by no other value.
   */
  @Test
  void get_keepsTheSpansOwnDataAndTheListFindsTracesByAttribute() throws Exception {
    String traceId = "a77a77a77a77a77a77a77a77a77a77a7";
    String json = ("{'resourceSpans':[{'resource':{'attributes':["
        + "{'key':'service.name','value':{'stringValue':'checkout'}},"
        + "{'key':'k8s.pod.name','value':{'stringValue':'checkout-7f9c'}}]},"
        + "'scopeSpans':[{'spans':["
        + "{'traceId':'T','spanId':'0000000000000001','name':'POST /cart','kind':2,"
        + "'startTimeUnixNano':'1000','endTimeUnixNano':'9000','attributes':["
        + "{'key':'http.route','value':{'stringValue':'/api/checkout'}},"
        + "{'key':'http.response.status_code','value':{'intValue':'500'}},"
        + "{'key':'retry','value':{'boolValue':true}},"
        + "{'key':'tags','value':{'arrayValue':{'values':[{'stringValue':'a'},{'doubleValue':1.5}]}}}],"
        + "'events':[{'name':'exception','timeUnixNano':'5000','attributes':["
        + "{'key':'exception.stacktrace','value':{'stringValue':'java.lang.IllegalStateException\\n\\tat Cart.pay'}}]}],"
        + "'links':[{'traceId':'0102030405060708090a0b0c0d0e0f10','spanId':'1112131415161718'}]}"
        + "]}]}]}").replace('\'', '"').replace("T", traceId);

    JsonObject profile = analysedProfile(json, traceId);
    String byRoute = get("/api/v1/traces?limit=500&attr.http.route=/api/checkout").body();
    String byPod = get("/api/v1/traces?limit=500&attr.k8s.pod.name=checkout-7f9c"
        + "&attr.http.response.status_code=500").body();
    String byOtherRoute = get("/api/v1/traces?limit=500&attr.http.route=/api/cart").body();

    assertThat(profile.get("attributesKept").getAsBoolean()).isTrue();
    JsonObject span = profile.getAsJsonArray("spans").get(0).getAsJsonObject();
    JsonObject attributes = span.getAsJsonObject("attributes");
    assertThat(attributes.get("http.route").getAsString()).isEqualTo("/api/checkout");
    assertThat(attributes.get("http.response.status_code").getAsLong()).isEqualTo(500);
    assertThat(attributes.get("retry").getAsBoolean()).isTrue();
    assertThat(attributes.get("tags").toString()).isEqualTo("[\"a\",1.5]");
    JsonObject event = span.getAsJsonArray("events").get(0).getAsJsonObject();
    assertThat(event.get("name").getAsString()).isEqualTo("exception");
    assertThat(event.get("timeNanos").getAsLong()).isEqualTo(5000);
    assertThat(event.getAsJsonObject("attributes").get("exception.stacktrace").getAsString())
        .isEqualTo("java.lang.IllegalStateException\n\tat Cart.pay");
    JsonObject link = span.getAsJsonArray("links").get(0).getAsJsonObject();
    assertThat(link.get("traceId").getAsString()).isEqualTo("0102030405060708090a0b0c0d0e0f10");
    assertThat(link.get("spanId").getAsString()).isEqualTo("1112131415161718");
    JsonObject resource = profile.getAsJsonArray("otelResources")
        .get(span.get("otelResource").getAsInt()).getAsJsonObject();
    assertThat(resource.get("k8s.pod.name").getAsString()).isEqualTo("checkout-7f9c");
    assertThat(byRoute).contains(traceId);
    assertThat(byPod).contains(traceId);
    assertThat(byOtherRoute).doesNotContain(traceId);
  }

  @Test
  void get_unknownTrace_404WithJsonError() throws Exception {
    HttpResponse<String> response = get("/api/v1/traces/00000000000000000000000000000bad");

    assertThat(response.statusCode()).isEqualTo(404);
    assertThat(response.body()).startsWith("{\"error\":\"no recently analysed trace 00000000000000000000000000000bad");
  }

  @Test
  void get_malformedId_400WithJsonError() throws Exception {
    HttpResponse<String> response = get("/api/v1/traces/not-a-trace-id");

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(response.body()).isEqualTo(
        "{\"error\":\"trace id must be 32 hex characters, got 14: 'not-a-trace-id'\"}");
  }

  /** A trace's profile (megabytes for a large trace) goes gzipped to a client that takes it. */
  @Test
  void get_toAClientThatTakesGzip_answersGzipped() throws Exception {
    String name = "fanout-self-time";
    String expected = new String(GoldenCases.expectedJson(name), StandardCharsets.UTF_8);
    TraceId traceId = TraceId.fromHex(
        expected.replaceAll("(?s).*\"traceId\": \"([0-9a-f]{32})\".*", "$1"));
    assertThat(post(GoldenCases.otlpJson(name)).statusCode()).isEqualTo(200);
    time.advance(Duration.ofSeconds(5));
    assembler.sweep();
    analysed.await(traceId, Duration.ofSeconds(30));
    String plain = get("/api/v1/traces/" + traceId.toHex()).body();

    HttpResponse<byte[]> gzipped = http.send(HttpRequest.newBuilder(URI.create(
            Ports.of(context).httpUrl("/api/v1/traces/" + traceId.toHex())))
        .header("Accept-Encoding", "gzip").build(), HttpResponse.BodyHandlers.ofByteArray());

    assertThat(gzipped.headers().firstValue("content-encoding")).hasValue("gzip");
    assertThat(gzipped.body().length).isLessThan(plain.length());
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(gzipped.body()))) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(plain);
    }
  }

  /** Posts an OTLP/JSON trace, completes and analyses it, and answers its profile. */
  private JsonObject analysedProfile(String json, String traceId) throws Exception {
    assertThat(post(json.getBytes(StandardCharsets.UTF_8)).statusCode()).isEqualTo(200);
    time.advance(Duration.ofSeconds(5));
    assembler.sweep();
    analysed.await(TraceId.fromHex(traceId), Duration.ofSeconds(30));
    return JsonParser.parseString(get("/api/v1/traces/" + traceId).body()).getAsJsonObject();
  }

  private HttpResponse<String> post(byte[] json) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(Ports.of(context).httpUrl("/v1/traces")))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(json)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> get(String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(Ports.of(context).httpUrl(path))).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
