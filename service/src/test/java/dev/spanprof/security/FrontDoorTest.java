package dev.spanprof.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.spanprof.testing.Meters;
import dev.spanprof.testing.Ports;
import dev.spanprof.v1.GetRankingRequest;
import dev.spanprof.v1.ProfileServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.ApplicationContext;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.exporter.otlp.trace.OtlpGrpcSpanExporter;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The front door with write and read tokens set and one origin allowed, through real clients:
 * the OpenTelemetry Java SDK's OTLP exporters (gRPC and HTTP) with and without a bearer header,
 * the query API over HTTP and gRPC with each kind of token, a CORS preflight and the UI's
 * security headers.
 */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FrontDoorTest implements TestPropertyProvider {

  static final String ORIGIN = "https://app.example.com";
  @TempDir static Path tokens;
  private final HttpClient http = HttpClient.newHttpClient();
  @Inject ApplicationContext context;
  @Inject MeterRegistry registry;

  @Override
  public Map<String, String> getProperties() {
    return properties(tokens);
  }

  /** Write tokens w-old and w-new, read token r1, and {@link #ORIGIN} allowed by CORS. */
  static Map<String, String> properties(Path directory) {
    try {
      return Map.of(
          "spanprof.auth.write-tokens-file",
          Files.writeString(directory.resolve("write"), "w-old\nw-new\n").toString(),
          "spanprof.auth.read-tokens-file",
          Files.writeString(directory.resolve("read"), "r1\n").toString(),
          "spanprof.ingest.cors.allowed-origins", ORIGIN);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void sdkExporters_withAWriteToken_areCountedAndWithoutAreRefused() {
    Meters meters = new Meters(registry);
    Ports ports = Ports.of(context);
    double grpcBefore = meters.count("spanprof.received.spans", "transport", "grpc");
    double httpBefore = meters.count("spanprof.received.spans", "transport", "http");

    assertThat(export(OtlpGrpcSpanExporter.builder().setEndpoint("http://localhost:" + ports.grpc())
        .addHeader("Authorization", "Bearer w-new").build())).isTrue();
    assertThat(export(OtlpHttpSpanExporter.builder().setEndpoint(ports.httpUrl("/v1/traces"))
        .addHeader("Authorization", "Bearer w-old").build())).isTrue();
    assertThat(export(OtlpGrpcSpanExporter.builder()
        .setEndpoint("http://localhost:" + ports.grpc()).build())).isFalse();
    assertThat(export(OtlpHttpSpanExporter.builder().setEndpoint(ports.httpUrl("/v1/traces"))
        .addHeader("Authorization", "Bearer r1").build())).isFalse();

    assertThat(meters.count("spanprof.received.spans", "transport", "grpc") - grpcBefore)
        .isEqualTo(1);
    assertThat(meters.count("spanprof.received.spans", "transport", "http") - httpBefore)
        .isEqualTo(1);
    assertThat(meters.count("spanprof.auth.refused", "transport", "grpc", "reason", "missing"))
        .isPositive();
    assertThat(meters.count("spanprof.auth.refused", "transport", "http", "reason", "wrong_kind"))
        .isPositive();
  }

  @Test
  void queryApi_refusesAWriteTokenAndAcceptsAReadToken() throws Exception {
    HttpResponse<String> none = get("/api/v1/ranking", null);
    HttpResponse<String> write = get("/api/v1/ranking", "w-old");
    HttpResponse<String> read = get("/api/v1/ranking", "r1");
    HttpResponse<String> page = get("/", null);

    assertThat(none.statusCode()).isEqualTo(401);
    assertThat(none.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"spanprof\"");
    assertThat(none.body()).contains("a bearer token is required to read profiles");
    assertThat(write.statusCode()).isEqualTo(403);
    assertThat(write.body()).isEqualTo("{\"error\":\"this token may not read profiles\"}");
    assertThat(read.statusCode()).isEqualTo(200);
    assertThat(page.statusCode()).as("the pages hold no data").isEqualTo(200);
    assertThat(page.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(
        policy -> assertThat(policy).contains("default-src 'self'", "frame-ancestors 'none'"));
    assertThat(page.headers().firstValue("X-Frame-Options")).hasValue("DENY");
  }

  @Test
  void profileService_needsAReadToken() throws Exception {
    ManagedChannel channel = NettyChannelBuilder.forAddress("localhost", Ports.of(context).grpc())
        .usePlaintext().build();
    try {
      var stub = ProfileServiceGrpc.newBlockingStub(channel);

      StatusRuntimeException none = catchThrowableOfType(StatusRuntimeException.class,
          () -> stub.getRanking(GetRankingRequest.getDefaultInstance()));
      StatusRuntimeException write = catchThrowableOfType(StatusRuntimeException.class,
          () -> stub.withInterceptors(bearer("w-new"))
              .getRanking(GetRankingRequest.getDefaultInstance()));

      assertThat(none.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
      assertThat(write.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
      assertThat(write.getStatus().getDescription()).isEqualTo("this token may not read profiles");
      assertThat(stub.withInterceptors(bearer("r1"))
          .getRanking(GetRankingRequest.getDefaultInstance())).isNotNull();
      assertThat(HealthGrpc.newBlockingStub(channel)
          .check(HealthCheckRequest.getDefaultInstance()).getStatus())
          .as("health checks need no token").isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void corsPreflight_answeredForTheAllowedOriginOnly() throws Exception {
    HttpResponse<String> allowed = preflight(ORIGIN, "content-type, authorization");
    HttpResponse<String> other = preflight("https://evil.example.net", "content-type");
    HttpResponse<String> header = preflight(ORIGIN, "x-custom");

    assertThat(allowed.statusCode()).isEqualTo(204);
    assertThat(allowed.headers().firstValue("Access-Control-Allow-Origin")).hasValue(ORIGIN);
    assertThat(allowed.headers().firstValue("Access-Control-Allow-Methods")).hasValue("POST");
    assertThat(allowed.headers().firstValue("Access-Control-Allow-Headers"))
        .hasValue("Content-Type, Content-Encoding, Authorization");
    assertThat(other.statusCode()).isEqualTo(403);
    assertThat(other.body()).contains("origin https://evil.example.net may not send spans");
    assertThat(other.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
    assertThat(header.statusCode()).isEqualTo(403);

    HttpResponse<String> post = http.send(HttpRequest.newBuilder(
            URI.create(Ports.of(context).httpUrl("/v1/traces")))
        .header("Origin", ORIGIN).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(post.statusCode()).as("no token: refused, readable by the page: " + post.body())
        .isEqualTo(401);
    assertThat(post.headers().firstValue("Access-Control-Allow-Origin")).hasValue(ORIGIN);
    HttpResponse<String> foreign = http.send(HttpRequest.newBuilder(
            URI.create(Ports.of(context).httpUrl("/v1/traces")))
        .header("Origin", "https://evil.example.net").header("Content-Type", "application/json")
        .header("Authorization", "Bearer w-new")
        .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(foreign.statusCode()).as("a simple request from another origin").isEqualTo(403);
  }

  private HttpResponse<String> preflight(String origin, String headers) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(Ports.of(context).httpUrl("/v1/traces")))
        .method("OPTIONS", HttpRequest.BodyPublishers.noBody())
        .header("Origin", origin)
        .header("Access-Control-Request-Method", "POST")
        .header("Access-Control-Request-Headers", headers)
        .build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> get(String path, String token) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(Ports.of(context).httpUrl(path)));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static io.grpc.ClientInterceptor bearer(String token) {
    Metadata headers = new Metadata();
    headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER),
        "Bearer " + token);
    return MetadataUtils.newAttachHeadersInterceptor(headers);
  }

  /** Exports one span made by the SDK through {@code exporter}; whether it succeeded. */
  static boolean export(SpanExporter exporter) {
    List<SpanData> ended = new ArrayList<>();
    SdkTracerProvider provider = SdkTracerProvider.builder()
        .addSpanProcessor(new SpanProcessor() {
          @Override
          public void onStart(io.opentelemetry.context.Context parent, ReadWriteSpan span) {}

          @Override
          public boolean isStartRequired() {
            return false;
          }

          @Override
          public void onEnd(ReadableSpan span) {
            ended.add(span.toSpanData());
          }

          @Override
          public boolean isEndRequired() {
            return true;
          }
        })
        .build();
    provider.get("front-door").spanBuilder("call").startSpan().end();
    CompletableResultCode result = exporter.export(ended).join(30, TimeUnit.SECONDS);
    exporter.shutdown().join(10, TimeUnit.SECONDS);
    provider.shutdown().join(10, TimeUnit.SECONDS);
    return result.isSuccess();
  }
}
