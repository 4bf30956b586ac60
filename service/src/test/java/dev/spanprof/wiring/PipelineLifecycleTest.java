package dev.spanprof.wiring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.assembly.Completion;
import dev.spanprof.assembly.TraceAssembler;
import dev.spanprof.span.TraceId;
import dev.spanprof.testing.Otlp;
import dev.spanprof.testing.Ports;
import dev.spanprof.testing.RecordingTraceSink;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.NettyChannelBuilder;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.env.Environment;
import io.micronaut.runtime.server.EmbeddedServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Shutdown hands every buffered trace to the analysis, and turns new work away meanwhile. */
class PipelineLifecycleTest {

  private static final Map<String, Object> PROPERTIES =
      Map.of("test.sink", "recording", "test.time", "manual");

  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void close_bufferedTraces_completedWithShutdownBeforeTheContextCloses() throws Exception {
    EmbeddedServer server = ApplicationContext.run(EmbeddedServer.class, PROPERTIES, Environment.TEST);
    ApplicationContext context = server.getApplicationContext();
    RecordingTraceSink sink = context.getBean(RecordingTraceSink.class);
    Counter shutdownTraces = context.getBean(MeterRegistry.class)
        .get("spanprof.traces").tag("completion", "shutdown").counter();
    post(Ports.of(context), Otlp.request("shop",
        Otlp.span(new TraceId(1, 1), 1), Otlp.span(new TraceId(1, 1), 2), Otlp.span(new TraceId(2, 2), 1)));
    assertThat(context.getBean(TraceAssembler.class).bufferedSpans()).isEqualTo(3);

    context.close();

    assertThat(sink.traces()).hasSize(2)
        .allSatisfy(trace -> assertThat(trace.completion()).isEqualTo(Completion.SHUTDOWN))
        .extracting(CompletedTrace::spanCount).containsExactlyInAnyOrder(2, 1);
    assertThat(shutdownTraces.count()).isEqualTo(2);
  }

  @Test
  void drain_turnsNewWorkAwayAndReportsNotReady() throws Exception {
    EmbeddedServer server = ApplicationContext.run(EmbeddedServer.class, PROPERTIES, Environment.TEST);
    ApplicationContext context = server.getApplicationContext();
    Ports ports = Ports.of(context);
    ManagedChannel channel = NettyChannelBuilder.forAddress("localhost", ports.grpc())
        .usePlaintext().build();
    try {
      post(ports, Otlp.request("shop", Otlp.span(new TraceId(3, 3), 1)));
      assertThat(get(ports.managementUrl("/health/readiness")).statusCode()).isEqualTo(200);

      context.getBean(PipelineLifecycle.class).drain();

      assertThat(context.getBean(RecordingTraceSink.class).traces()).singleElement()
          .satisfies(trace -> assertThat(trace.completion()).isEqualTo(Completion.SHUTDOWN));
      HttpResponse<String> readiness = get(ports.managementUrl("/health/readiness"));
      assertThat(readiness.statusCode()).isEqualTo(503);
      assertThat(readiness.body()).isEqualTo("{\"status\":\"DOWN\",\"reason\":\"shutting down\"}");
      assertThat(get(ports.managementUrl("/health/liveness")).statusCode()).isEqualTo(200);
      HttpResponse<byte[]> refused = post(ports, Otlp.request("shop", Otlp.span(new TraceId(4, 4), 1)));
      assertThat(refused.statusCode()).isEqualTo(503);
      assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
      StatusRuntimeException grpcRefused = catchThrowableOfType(StatusRuntimeException.class,
          () -> TraceServiceGrpc.newBlockingStub(channel)
              .export(Otlp.request("shop", Otlp.span(new TraceId(5, 5), 1))));
      assertThat(grpcRefused.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(grpcRefused.getStatus().getDescription()).contains("shutting down");
      assertThat(HealthGrpc.newBlockingStub(channel).check(HealthCheckRequest.getDefaultInstance())
          .getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.NOT_SERVING);
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      context.close();
    }
  }

  private HttpResponse<byte[]> post(Ports ports, ExportTraceServiceRequest request) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(ports.httpUrl("/v1/traces")))
            .header("Content-Type", "application/x-protobuf")
            .POST(HttpRequest.BodyPublishers.ofByteArray(request.toByteArray()))
            .build(),
        HttpResponse.BodyHandlers.ofByteArray());
  }

  private HttpResponse<String> get(String url) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(url)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
