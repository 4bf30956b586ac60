package dev.spanprof.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.rpc.Code;
import com.google.rpc.RetryInfo;
import dev.spanprof.assembly.TraceAssembler;
import dev.spanprof.assembly.TraceWorkers;
import dev.spanprof.span.TraceId;
import dev.spanprof.testing.Meters;
import dev.spanprof.testing.Otlp;
import dev.spanprof.testing.Ports;
import dev.spanprof.testing.RecordingTraceSink;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.StatusProto;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import io.opentelemetry.proto.trace.v1.Span;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A burst into a small buffer whose analysis is stalled: what does not fit is refused with retry
 * hints, and every span sent is accounted for exactly.
 *
 * <pre>
 *   buffer 50 spans, worker queue 20 spans, one worker held in the sink
 *   requests 1-5  (10 spans, one trace each)  fill the buffer               accepted
 *   requests 6-7  evict the oldest trace each into the worker queue (10+10)  accepted
 *   requests 8-   the queue is full, nothing more can be evicted            refused
 *   then 2 spans that are not spans inside: refused as full, not decoded      refused
 * </pre>
 */
@MicronautTest
@Property(name = "test.sink", value = "recording")
@Property(name = "test.time", value = "manual")
@Property(name = "spanprof.assembly.max-buffered-spans", value = "50")
@Property(name = "spanprof.analysis.max-queued-spans", value = "20")
@Property(name = "spanprof.assembly.max-spans-per-trace", value = "20")
@Property(name = "spanprof.analysis.workers", value = "1")
class BackpressureTest {

  private static final int SPANS_PER_REQUEST = 10;
  private static final String PROTOBUF = "application/x-protobuf";

  @Inject ApplicationContext context;
  @Inject RecordingTraceSink sink;
  @Inject TraceAssembler assembler;
  @Inject TraceWorkers workers;
  @Inject MeterRegistry registry;

  @Test
  void burst_intoFullBuffer_refusedWithRetryHintsAndEverySpanAccountedFor() throws Exception {
    sink.hold();
    Ports ports = Ports.of(context);
    HttpClient http = HttpClient.newHttpClient();
    ManagedChannel channel = NettyChannelBuilder.forAddress("localhost", ports.grpc())
        .usePlaintext().build();
    int sent = 0;
    int httpAccepted = 0;
    int httpRefused = 0;
    int grpcAccepted = 0;
    int grpcRefused = 0;
    try {
      for (int request = 1; request <= 20; request++) {
        ExportTraceServiceRequest export = tenSpanTrace(request);
        sent += SPANS_PER_REQUEST;
        if (request % 2 == 0) {
          HttpResponse<byte[]> response = post(http, ports, PROTOBUF, export.toByteArray());
          if (response.statusCode() == 200) {
            httpAccepted++;
          } else {
            assertThat(response.statusCode()).isEqualTo(429);
            assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
            assertThat(com.google.rpc.Status.parseFrom(response.body()).getMessage())
                .startsWith("the span buffer is full");
            httpRefused++;
          }
        } else {
          StatusRuntimeException error = catchThrowableOfType(StatusRuntimeException.class,
              () -> TraceServiceGrpc.newBlockingStub(channel).export(export));
          if (error == null) {
            grpcAccepted++;
          } else {
            com.google.rpc.Status status = StatusProto.fromThrowable(error);
            assertThat(status.getCode()).isEqualTo(Code.RESOURCE_EXHAUSTED_VALUE);
            // OTLP clients retry RESOURCE_EXHAUSTED only when the status carries RetryInfo.
            assertThat(status.getDetails(0).unpack(RetryInfo.class).getRetryDelay().getSeconds())
                .isEqualTo(1);
            grpcRefused++;
          }
        }
      }
      // Refused before it is decoded: spans that are not spans inside, framed as OTLP, are
      // refused as full, not as malformed.
      HttpResponse<byte[]> undecoded = post(http, ports, PROTOBUF, Otlp.twoSpansMalformedInside());
      sent += 2;
      assertThat(undecoded.statusCode()).isEqualTo(429);
      // The same in OTLP/JSON.
      HttpResponse<byte[]> undecodedJson =
          post(http, ports, "application/json", Otlp.twoJsonSpansMalformedInside());
      sent += 2;
      assertThat(undecodedJson.statusCode()).isEqualTo(429);
      com.google.rpc.Status jsonStatus = Otlp.jsonStatus(undecodedJson.body());
      assertThat(jsonStatus.getMessage()).startsWith("the span buffer is full");
      assertThat(jsonStatus.getDetails(0).unpack(RetryInfo.class).getRetryDelay().getSeconds())
          .isEqualTo(1);
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }

    Meters meters = new Meters(registry);
    assertThat(httpAccepted + grpcAccepted).isEqualTo(7);
    assertThat(httpRefused + grpcRefused).isEqualTo(13);
    double received = meters.count("spanprof.received.spans", "transport", "http")
        + meters.count("spanprof.received.spans", "transport", "grpc");
    double refused = meters.count("spanprof.refused.spans", "transport", "http", "reason", "buffer_full")
        + meters.count("spanprof.refused.spans", "transport", "grpc", "reason", "buffer_full");
    double completed = meters.count("spanprof.completed.spans", "completion", "evicted");
    double buffered = meters.gauge("spanprof.buffered.spans");
    assertThat(received).isEqualTo(70);
    assertThat(refused).isEqualTo(134);
    assertThat(buffered).isEqualTo(50).isEqualTo(assembler.bufferedSpans());
    assertThat(completed).isEqualTo(20).isEqualTo(workers.queuedSpans());
    // Every span sent: completed (handed to the analysis) + still buffered + refused.
    assertThat(completed + buffered + refused).isEqualTo(sent);
    sink.release();
  }

  private static HttpResponse<byte[]> post(HttpClient http, Ports ports, String contentType,
      byte[] body) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(ports.httpUrl("/v1/traces")))
            .header("Content-Type", contentType)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build(),
        HttpResponse.BodyHandlers.ofByteArray());
  }

  private static ExportTraceServiceRequest tenSpanTrace(int number) {
    TraceId trace = new TraceId(0xB0, number);
    Span.Builder[] spans = new Span.Builder[SPANS_PER_REQUEST];
    for (int i = 0; i < SPANS_PER_REQUEST; i++) {
      spans[i] = Otlp.span(trace, i + 1);
    }
    return Otlp.request("burst", spans);
  }
}
