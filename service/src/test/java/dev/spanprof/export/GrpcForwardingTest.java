package dev.spanprof.export;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.spanprof.span.TraceId;
import dev.spanprof.testing.GrpcOtlpReceiver;
import dev.spanprof.testing.Otlp;
import dev.spanprof.testing.Ports;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import io.netty.buffer.PoolArenaMetric;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.exporter.otlp.trace.OtlpGrpcSpanExporter;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.io.IOException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Forwarding over OTLP/gRPC (gzip) to a plain grpc-java TraceService. */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Property(name = "test.time", value = "manual")
@Property(name = "test.profiles", value = "recording")
class GrpcForwardingTest extends ForwardingContract implements TestPropertyProvider {

  GrpcForwardingTest() throws IOException {
    super(GrpcOtlpReceiver.plaintext());
  }

  /** The OpenTelemetry Java SDK → spanprof → next hop: the SDK's own attributes survive. */
  @Test
  void sdkExporter_spansArriveEnrichedWithTheirOwnAttributes() throws Exception {
    SdkTracerProvider provider = SdkTracerProvider.builder()
        .setResource(Resource.create(Attributes.of(AttributeKey.stringKey("service.name"), "sdk")))
        .addSpanProcessor(SimpleSpanProcessor.create(OtlpGrpcSpanExporter.builder()
            .setEndpoint("http://localhost:" + Ports.of(context).grpc()).build()))
        .build();
    Span span = provider.get("test").spanBuilder("sdk-call")
        .setAttribute("app.user", "ada").startSpan();
    span.end();
    assertThat(provider.shutdown().join(30, TimeUnit.SECONDS).isSuccess()).isTrue();
    time.advance(Duration.ofSeconds(5));
    assembler.sweep();

    ByteString spanId = ByteString.copyFrom(HexFormat.of().parseHex(span.getSpanContext().getSpanId()));
    var received = receiver.await(r -> r.span().getSpanId().equals(spanId), 1, Duration.ofSeconds(30));

    Map<String, AnyValue> attributes = attributes(received.get(0).span());
    assertThat(attributes.get("app.user").getStringValue()).isEqualTo("ada");
    assertThat(attributes.get("spanprof.resource").getStringValue()).isEqualTo("sdk");
    assertThat(attributes.get("spanprof.trace.complete").getBoolValue()).isTrue();
  }

  /**
   * A request that gzips to far more than the 64 KiB chunks Micronaut gives Netty's pools is
   * framed in buffers of the next hop's pool, none allocated outside it.
   */
  @Test
  void largeRequest_framedInPooledBuffers() throws Exception {
    PoolArenaMetric arena = GrpcSender.NEXT_HOP_BUFFERS.metric().directArenas().get(0);
    long pooledBefore = arena.numNormalAllocations();
    TraceId trace = TraceId.fromHex("0000000000000000000000000000d1ce");
    Random random = new Random(66);
    int spanCount = 600;
    io.opentelemetry.proto.trace.v1.Span.Builder[] spans =
        new io.opentelemetry.proto.trace.v1.Span.Builder[spanCount];
    for (int i = 0; i < spanCount; i++) {
      // 1.5 KB of random letters a span: about 600 KB once gzipped.
      StringBuilder noise = new StringBuilder();
      random.ints(1500, 'a', 'z' + 1).forEach(letter -> noise.append((char) letter));
      spans[i] = Otlp.span(trace, i + 1).addAttributes(KeyValue.newBuilder()
          .setKey("app.noise").setValue(AnyValue.newBuilder().setStringValue(noise.toString())));
    }
    ExportTraceServiceRequest request = Otlp.request("large", spans);
    ManagedChannel channel = NettyChannelBuilder.forAddress("localhost", Ports.of(context).grpc())
        .usePlaintext().build();
    try {
      TraceServiceGrpc.newBlockingStub(channel).export(request);
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
    time.advance(Duration.ofSeconds(5));
    assembler.sweep();
    ByteString traceBytes = request.getResourceSpans(0).getScopeSpans(0).getSpans(0).getTraceId();

    assertThat(receiver.await(r -> r.span().getTraceId().equals(traceBytes), spanCount,
        Duration.ofSeconds(30))).hasSize(spanCount);
    assertThat(arena.numNormalAllocations()).isGreaterThan(pooledBefore);
    assertThat(arena.numHugeAllocations()).isZero();
  }

  @Override
  public Map<String, String> getProperties() {
    return Map.of(
        "spanprof.export.endpoint", "http://localhost:" + receiver.port(),
        "spanprof.export.protocol", "grpc",
        "spanprof.export.flush-interval", "10ms");
  }

  /** gzip by default: the request is encoded straight into the compressor. */
  @AfterAll
  void everyRequestWasGzipped() {
    assertThat(((GrpcOtlpReceiver) receiver).encodings()).containsOnly("gzip");
  }
}
