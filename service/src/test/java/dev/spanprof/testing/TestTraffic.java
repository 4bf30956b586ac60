package dev.spanprof.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.assembly.ManualTimeSource;
import dev.spanprof.assembly.TraceAssembler;
import dev.spanprof.golden.GoldenCases;
import dev.spanprof.span.TraceId;
import io.micronaut.context.ApplicationContext;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Sends traces to a test context over OTLP/HTTP and completes them, for tests that need analysed
 * traces: the context runs with {@code test.time=manual} and {@code test.profiles=recording}.
 */
public final class TestTraffic {

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private TestTraffic() {}

  /** POSTs {@code body} to /v1/traces and expects a 200. */
  public static void post(ApplicationContext context, String contentType, byte[] body)
      throws Exception {
    HttpResponse<String> response = send(context, contentType, body);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
  }

  /** POSTs an OTLP protobuf request to /v1/traces; returns the HTTP status. */
  public static int postProtobuf(ApplicationContext context, ExportTraceServiceRequest request)
      throws Exception {
    return send(context, "application/x-protobuf", request.toByteArray()).statusCode();
  }

  private static HttpResponse<String> send(ApplicationContext context, String contentType,
      byte[] body) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(Ports.of(context).httpUrl("/v1/traces")))
            .header("Content-Type", contentType)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** POSTs a golden case's OTLP/JSON. */
  public static void postGolden(ApplicationContext context, String name) throws Exception {
    post(context, "application/json", GoldenCases.otlpJson(name));
  }

  /** Moves time past the trace timeout, completes what is due, and waits for these analyses. */
  public static void complete(ApplicationContext context, TraceId... traces) throws Exception {
    context.getBean(ManualTimeSource.class).advance(Duration.ofSeconds(5));
    context.getBean(TraceAssembler.class).sweep();
    RecordingProfiles analysed = context.getBean(RecordingProfiles.class);
    for (TraceId trace : traces) {
      analysed.await(trace, Duration.ofSeconds(30));
    }
  }
}
