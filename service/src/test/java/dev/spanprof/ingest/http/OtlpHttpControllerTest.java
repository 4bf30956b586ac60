package dev.spanprof.ingest.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.luben.zstd.Zstd;
import com.google.protobuf.util.JsonFormat;
import com.google.rpc.Code;
import com.google.rpc.Status;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.assembly.ManualTimeSource;
import dev.spanprof.assembly.TraceAssembler;
import dev.spanprof.golden.GoldenCases;
import dev.spanprof.otlp.OtlpJson;
import dev.spanprof.span.TraceId;
import dev.spanprof.testing.Meters;
import dev.spanprof.testing.Otlp;
import dev.spanprof.testing.Ports;
import dev.spanprof.testing.RecordingTraceSink;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import jakarta.inject.Inject;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** OTLP/HTTP against the running server: golden cases, response encodings and bad input. */
@MicronautTest
@Property(name = "test.sink", value = "recording")
@Property(name = "test.time", value = "manual")
class OtlpHttpControllerTest {

  private static final String PROTOBUF = "application/x-protobuf";
  private static final String JSON = "application/json";

  private final HttpClient client = HttpClient.newHttpClient();

  @Inject ApplicationContext context;
  @Inject ManualTimeSource time;
  @Inject TraceAssembler assembler;
  @Inject RecordingTraceSink sink;
  @Inject MeterRegistry registry;

  @ParameterizedTest
  @MethodSource("dev.spanprof.golden.GoldenCases#names")
  void post_goldenCaseAsJson_acceptedAndAssembledIntoOneTrace(String name) throws Exception {
    byte[] body = GoldenCases.otlpJson(name);
    ExportTraceServiceRequest decoded = new OtlpJson().decode(body);
    int spans = decoded.getResourceSpansList().stream()
        .flatMap(resourceSpans -> resourceSpans.getScopeSpansList().stream())
        .mapToInt(scopeSpans -> scopeSpans.getSpansCount()).sum();
    TraceId traceId = TraceId.fromHex(
        new String(body, StandardCharsets.UTF_8).replaceAll("(?s).*?\"traceId\": \"([0-9a-f]{32})\".*", "$1"));

    HttpResponse<byte[]> response = post(JSON, null, body);

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("content-type")).hasValue(JSON);
    assertThat(new String(response.body(), StandardCharsets.UTF_8)).isEqualTo("{}");
    time.advance(Duration.ofSeconds(5));
    assembler.sweep();
    List<CompletedTrace> traces = sink.await(Set.of(traceId), Duration.ofSeconds(30));
    assertThat(traces).singleElement()
        .satisfies(trace -> assertThat(trace.spanCount()).isEqualTo(spans));
  }

  @Test
  void post_protobuf_answersProtobuf() throws Exception {
    byte[] body = Otlp.request("shop", Otlp.span(new TraceId(7, 7), 1)).toByteArray();

    HttpResponse<byte[]> response = post(PROTOBUF, null, body);

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("content-type")).hasValue(PROTOBUF);
    assertThat(ExportTraceServiceResponse.parseFrom(response.body()))
        .isEqualTo(ExportTraceServiceResponse.getDefaultInstance());
  }

  @Test
  void post_garbageProtobuf_400WithMessageAndCounted() throws Exception {
    double before = rejected("malformed");

    HttpResponse<byte[]> response = post(PROTOBUF, null, new byte[] {(byte) 0xff, (byte) 0xff, 1, 2});

    assertThat(response.statusCode()).isEqualTo(400);
    Status status = Status.parseFrom(response.body());
    assertThat(status.getCode()).isEqualTo(Code.INVALID_ARGUMENT_VALUE);
    assertThat(status.getMessage()).startsWith("the body is not a valid OTLP ExportTraceServiceRequest protobuf");
    assertThat(rejected("malformed") - before).isEqualTo(1);
    assertStillServing();
  }

  @Test
  void post_truncatedProtobuf_400() throws Exception {
    byte[] whole = Otlp.request("shop", Otlp.span(new TraceId(8, 8), 1)).toByteArray();

    HttpResponse<byte[]> response = post(PROTOBUF, null, Arrays.copyOf(whole, whole.length / 2));

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(Status.parseFrom(response.body()).getMessage()).contains("truncated");
    assertStillServing();
  }

  @Test
  void post_invalidJson_400WithJsonStatus() throws Exception {
    HttpResponse<byte[]> response = post(JSON, null, "{\"resourceSpans\": [".getBytes(StandardCharsets.UTF_8));

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(response.headers().firstValue("content-type")).hasValue(JSON);
    assertThat(jsonStatus(response).getMessage()).startsWith("the body is not valid JSON");
    assertStillServing();
  }

  @Test
  void post_wrongContentType_415AndCounted() throws Exception {
    double before = rejected("unsupported_media_type");

    HttpResponse<byte[]> response = post("text/plain", null, "hello".getBytes(StandardCharsets.UTF_8));

    assertThat(response.statusCode()).isEqualTo(415);
    assertThat(jsonStatus(response).getMessage())
        .isEqualTo("Content-Type must be application/x-protobuf or application/json, got 'text/plain'");
    assertThat(rejected("unsupported_media_type") - before).isEqualTo(1);
  }

  @Test
  void post_emptyBody_jsonIs400_protobufIsAnEmptyRequest() throws Exception {
    HttpResponse<byte[]> json = post(JSON, null, new byte[0]);
    HttpResponse<byte[]> protobuf = post(PROTOBUF, null, new byte[0]);

    assertThat(json.statusCode()).isEqualTo(400);
    assertThat(jsonStatus(json).getMessage()).contains("must be a JSON object");
    // A zero-length protobuf message is a valid ExportTraceServiceRequest with no spans.
    assertThat(protobuf.statusCode()).isEqualTo(200);
  }

  @Test
  void post_threeByteTraceId_partialSuccessKeepsTheValidSpan() throws Exception {
    Meters meters = new Meters(registry);
    double invalidBefore = meters.count("spanprof.refused.spans", "transport", "http", "reason", "invalid");
    double receivedBefore = meters.count("spanprof.received.spans", "transport", "http");
    TraceId valid = new TraceId(3, 3);
    String json = """
        {"resourceSpans":[{"scopeSpans":[{"spans":[
          {"traceId":"0102ab","spanId":"0000000000000001","name":"bad",
           "startTimeUnixNano":"1","endTimeUnixNano":"2"},
          {"traceId":"%s","spanId":"0000000000000002","name":"good",
           "startTimeUnixNano":"1","endTimeUnixNano":"2"}]}]}]}
        """.formatted(valid.toHex());

    HttpResponse<byte[]> response = post(JSON, null, json.getBytes(StandardCharsets.UTF_8));

    assertThat(response.statusCode()).isEqualTo(200);
    ExportTraceServiceResponse.Builder parsed = ExportTraceServiceResponse.newBuilder();
    JsonFormat.parser().merge(new String(response.body(), StandardCharsets.UTF_8), parsed);
    assertThat(parsed.getPartialSuccess().getRejectedSpans()).isEqualTo(1);
    assertThat(parsed.getPartialSuccess().getErrorMessage())
        .isEqualTo("resourceSpans[0].scopeSpans[0].spans[0] rejected: traceId has 3 bytes, expected 16");
    assertThat(meters.count("spanprof.refused.spans", "transport", "http", "reason", "invalid") - invalidBefore)
        .isEqualTo(1);
    assertThat(meters.count("spanprof.received.spans", "transport", "http") - receivedBefore).isEqualTo(1);
    time.advance(Duration.ofSeconds(5));
    assembler.sweep();
    assertThat(sink.await(Set.of(valid), Duration.ofSeconds(30))).singleElement()
        .satisfies(trace -> assertThat(trace.spans().get(0).name()).isEqualTo("good"));
  }

  @Test
  void post_endBeforeStart_acceptedWithWarningAndFlagged() throws Exception {
    Meters meters = new Meters(registry);
    double flaggedBefore = meters.count("spanprof.end.before.start.spans", "transport", "http");
    byte[] body = Otlp.request("shop", Otlp.span(new TraceId(4, 4), 1)
        .setStartTimeUnixNano(2_000).setEndTimeUnixNano(1_000)).toByteArray();

    HttpResponse<byte[]> response = post(PROTOBUF, null, body);

    assertThat(response.statusCode()).isEqualTo(200);
    ExportTraceServiceResponse parsed = ExportTraceServiceResponse.parseFrom(response.body());
    assertThat(parsed.getPartialSuccess().getRejectedSpans()).isZero();
    assertThat(parsed.getPartialSuccess().getErrorMessage())
        .contains("endTimeUnixNano is before startTimeUnixNano; kept and analysed as zero-length");
    assertThat(meters.count("spanprof.end.before.start.spans", "transport", "http") - flaggedBefore)
        .isEqualTo(1);
  }

  @Test
  void post_20MiBBody_413WithMessageAndCounted() throws Exception {
    double before = rejected("too_large");

    HttpResponse<byte[]> response = post(PROTOBUF, null, new byte[20 * 1024 * 1024]);

    assertThat(response.statusCode()).isEqualTo(413);
    Status status = Status.parseFrom(response.body());
    assertThat(status.getCode()).isEqualTo(Code.RESOURCE_EXHAUSTED_VALUE);
    assertThat(status.getMessage()).contains("larger than spanprof.ingest.max-message-size (16777216 bytes)");
    assertThat(rejected("too_large") - before).isEqualTo(1);
    assertStillServing();
  }

  @Test
  void post_chunked20MiBBody_413WithAStatusInTheRequestsEncoding() throws Exception {
    double before = rejected("too_large");

    HttpResponse<byte[]> response = postChunked(new byte[20 * 1024 * 1024]);

    assertThat(response.statusCode()).isEqualTo(413);
    assertThat(Status.parseFrom(response.body()).getCode())
        .isEqualTo(Code.RESOURCE_EXHAUSTED_VALUE);
    assertThat(rejected("too_large") - before).isEqualTo(1);
    assertStillServing();
  }

  @Test
  void post_chunked12MiBBody_readWhole_notRefusedForItsSize() throws Exception {
    HttpResponse<byte[]> response = postChunked(new byte[12 * 1024 * 1024]);

    assertThat(response.statusCode()).as("decoded, and zeros are no protobuf").isEqualTo(400);
  }

  @Test
  void post_headersOver16KiB_431WithAStatusAndCounted() throws Exception {
    double before = rejected("too_large");

    HttpResponse<byte[]> response = client.send(HttpRequest.newBuilder(
            URI.create(Ports.of(context).httpUrl("/v1/traces")))
        .header("Content-Type", JSON)
        .header("X-Padding", "x".repeat(20_000))
        .POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
        HttpResponse.BodyHandlers.ofByteArray());

    assertThat(response.statusCode()).isEqualTo(431);
    assertThat(jsonStatus(response).getMessage())
        .isEqualTo("the request's headers are larger than spanprof.ingest.max-header-size");
    assertThat(rejected("too_large") - before).isEqualTo(1);
    assertStillServing();
  }

  @Test
  void post_gzipExpandingPast16MiB_413() throws Exception {
    byte[] bomb = gzip(new byte[20 * 1024 * 1024]);
    assertThat(bomb.length).isLessThan(100_000);

    HttpResponse<byte[]> response = post(PROTOBUF, "gzip", bomb);

    assertThat(response.statusCode()).isEqualTo(413);
    assertThat(Status.parseFrom(response.body()).getMessage()).contains("when decompressed");
  }

  @Test
  void post_gzipHeaderButPlainBody_400() throws Exception {
    byte[] body = Otlp.request("shop", Otlp.span(new TraceId(5, 5), 1)).toByteArray();

    HttpResponse<byte[]> response = post(PROTOBUF, "gzip", body);

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(Status.parseFrom(response.body()).getMessage()).startsWith("the body is not valid gzip");
  }

  @Test
  void post_gzipJson_accepted() throws Exception {
    Meters meters = new Meters(registry);
    double before = meters.count("spanprof.received.spans", "transport", "http");
    String json = """
        {"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"000000000000000a000000000000000a",
          "spanId":"0000000000000001","startTimeUnixNano":"1","endTimeUnixNano":"2"}]}]}]}
        """;

    HttpResponse<byte[]> response = post(JSON, "gzip", gzip(json.getBytes(StandardCharsets.UTF_8)));

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(meters.count("spanprof.received.spans", "transport", "http") - before).isEqualTo(1);
  }

  @Test
  void post_zstdProtobuf_accepted_andCountedAsReceived() throws Exception {
    Meters meters = new Meters(registry);
    double before = meters.count("spanprof.received.spans", "transport", "http");
    byte[] body = Otlp.request("shop", Otlp.span(new TraceId(11, 11), 1), Otlp.span(new TraceId(11, 11), 2))
        .toByteArray();

    HttpResponse<byte[]> response = post(PROTOBUF, "zstd", Zstd.compress(body, 1));

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(meters.count("spanprof.received.spans", "transport", "http") - before).isEqualTo(2);
  }

  @Test
  void post_zstdExpandingPast16MiB_413() throws Exception {
    byte[] bomb = Zstd.compress(new byte[20 * 1024 * 1024], 1);
    assertThat(bomb.length).isLessThan(100_000);

    HttpResponse<byte[]> response = post(PROTOBUF, "zstd", bomb);

    assertThat(response.statusCode()).isEqualTo(413);
    assertThat(Status.parseFrom(response.body()).getMessage()).contains("when decompressed");
  }

  @Test
  void post_zstdHeaderButPlainBody_400() throws Exception {
    byte[] body = Otlp.request("shop", Otlp.span(new TraceId(5, 5), 1)).toByteArray();

    HttpResponse<byte[]> response = post(PROTOBUF, "zstd", body);

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(Status.parseFrom(response.body()).getMessage()).startsWith("the body is not valid zstd");
  }

  @Test
  void post_unknownContentEncoding_415NamingTheEncodingsTaken() throws Exception {
    double before = rejected("unsupported_media_type");
    byte[] body = Otlp.request("shop", Otlp.span(new TraceId(6, 6), 1)).toByteArray();

    HttpResponse<byte[]> response = post(PROTOBUF, "br", body);

    assertThat(response.statusCode()).isEqualTo(415);
    assertThat(Status.parseFrom(response.body()).getMessage())
        .isEqualTo("Content-Encoding must be gzip, zstd or identity, got 'br'");
    assertThat(rejected("unsupported_media_type") - before).isEqualTo(1);
  }

  private void assertStillServing() throws Exception {
    byte[] body = Otlp.request("shop", Otlp.span(new TraceId(99, 99), 1)).toByteArray();
    assertThat(post(PROTOBUF, null, body).statusCode()).isEqualTo(200);
  }

  private double rejected(String reason) {
    return new Meters(registry).count("spanprof.rejected.requests", "transport", "http", "reason", reason);
  }

  private HttpResponse<byte[]> post(String contentType, String encoding, byte[] body)
      throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(
            URI.create(Ports.of(context).httpUrl("/v1/traces")))
        .header("Content-Type", contentType)
        .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (encoding != null) {
      request.header("Content-Encoding", encoding);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  /** A protobuf POST of {@code body} without a length, so it is sent chunked. */
  private HttpResponse<byte[]> postChunked(byte[] body) throws IOException, InterruptedException {
    return client.send(HttpRequest.newBuilder(URI.create(Ports.of(context).httpUrl("/v1/traces")))
        .header("Content-Type", PROTOBUF)
        .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body)))
        .build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  private static Status jsonStatus(HttpResponse<byte[]> response) throws IOException {
    return Otlp.jsonStatus(response.body());
  }

  private static byte[] gzip(byte[] bytes) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
      gzip.write(bytes);
    }
    return out.toByteArray();
  }
}
