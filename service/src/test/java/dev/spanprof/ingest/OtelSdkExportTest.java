package dev.spanprof.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.assembly.Completion;
import dev.spanprof.assembly.ManualTimeSource;
import dev.spanprof.assembly.TraceAssembler;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.TraceId;
import dev.spanprof.testing.Meters;
import dev.spanprof.testing.Ports;
import dev.spanprof.testing.RecordingTraceSink;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.exporter.otlp.trace.OtlpGrpcSpanExporter;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The OpenTelemetry Java SDK as a real client: its OTLP exporters send spans of several traces;
 * spanprof receives them, assembles each trace whole and counts it by completion reason.
 */
@MicronautTest
@Property(name = "test.sink", value = "recording")
@Property(name = "test.time", value = "manual")
class OtelSdkExportTest {

  private static final int TRACES = 3;
  private static final int CHILDREN = 4;

  @Inject ApplicationContext context;
  @Inject ManualTimeSource time;
  @Inject TraceAssembler assembler;
  @Inject RecordingTraceSink sink;
  @Inject MeterRegistry registry;

  enum Exporter {
    GRPC("grpc", ports -> OtlpGrpcSpanExporter.builder()
        .setEndpoint("http://localhost:" + ports.grpc()).build()),
    GRPC_GZIP("grpc", ports -> OtlpGrpcSpanExporter.builder()
        .setEndpoint("http://localhost:" + ports.grpc()).setCompression("gzip").build()),
    HTTP_PROTOBUF("http", ports -> OtlpHttpSpanExporter.builder()
        .setEndpoint(ports.httpUrl("/v1/traces")).build()),
    HTTP_PROTOBUF_GZIP("http", ports -> OtlpHttpSpanExporter.builder()
        .setEndpoint(ports.httpUrl("/v1/traces")).setCompression("gzip").build());

    final String transport;
    final Function<Ports, SpanExporter> create;

    Exporter(String transport, Function<Ports, SpanExporter> create) {
      this.transport = transport;
      this.create = create;
    }
  }

  @ParameterizedTest
  @EnumSource(Exporter.class)
  void export_spansOfSeveralTraces_assembledPerTraceAndCountedByCompletion(Exporter kind)
      throws Exception {
    Meters meters = new Meters(registry);
    double receivedBefore = meters.count("spanprof.received.spans", "transport", kind.transport);
    double timeoutsBefore = meters.count("spanprof.traces", "completion", "timeout");
    SdkTracerProvider provider = SdkTracerProvider.builder()
        .setResource(Resource.getDefault().merge(Resource.create(Attributes.of(
            AttributeKey.stringKey("service.name"), "sdk-" + kind.name().toLowerCase()))))
        .addSpanProcessor(BatchSpanProcessor.builder(kind.create.apply(Ports.of(context))).build())
        .build();

    Map<TraceId, List<String>> sent = new HashMap<>();
    Tracer tracer = provider.get("spanprof-test");
    for (int t = 0; t < TRACES; t++) {
      Span root = tracer.spanBuilder("request " + t).startSpan();
      List<String> spanIds = new ArrayList<>(List.of(root.getSpanContext().getSpanId()));
      try (Scope ignored = root.makeCurrent()) {
        for (int c = 0; c < CHILDREN; c++) {
          Span child = tracer.spanBuilder("step " + c).startSpan();
          spanIds.add(child.getSpanContext().getSpanId());
          child.end();
        }
      }
      root.end();
      sent.put(TraceId.fromHex(root.getSpanContext().getTraceId()), spanIds);
    }
    assertThat(provider.forceFlush().join(30, TimeUnit.SECONDS).isSuccess()).isTrue();
    assertThat(provider.shutdown().join(30, TimeUnit.SECONDS).isSuccess()).isTrue();

    assertThat(meters.count("spanprof.received.spans", "transport", kind.transport) - receivedBefore)
        .isEqualTo(TRACES * (CHILDREN + 1));
    assertThat(assembler.bufferedSpans()).isEqualTo(TRACES * (CHILDREN + 1));
    time.advance(Duration.ofSeconds(5));
    assembler.sweep();

    List<CompletedTrace> completed = sink.await(sent.keySet(), Duration.ofSeconds(30));
    assertThat(completed).hasSize(TRACES);
    for (CompletedTrace trace : completed) {
      assertThat(trace.completion()).isEqualTo(Completion.TIMEOUT);
      assertThat(trace.fragment()).isFalse();
      assertThat(trace.spans()).extracting(span -> dev.spanprof.span.Ids.toHex(span.spanId()))
          .containsExactlyInAnyOrderElementsOf(sent.get(trace.traceId()));
      assertThat(trace.spans()).extracting(SpanRecord::serviceName)
          .containsOnly("sdk-" + kind.name().toLowerCase());
    }
    assertThat(meters.count("spanprof.traces", "completion", "timeout") - timeoutsBefore)
        .isEqualTo(TRACES);
    assertThat(assembler.bufferedSpans()).isZero();
  }
}
