package dev.spanprof.assembly;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.span.TraceId;
import dev.spanprof.testing.Meters;
import dev.spanprof.testing.Otlp;
import dev.spanprof.testing.RecordingTraceSink;
import dev.spanprof.testing.TestTraffic;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.Span;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The million-span trace, scaled down: one trace id sent as requests of 500 spans while
 * the analysis is stalled. Each fragment stops at the per-trace limit, the analysis queue never
 * holds more than its bound, what does not fit is refused, and once the analysis runs every
 * accepted span is analysed, in fragments no larger than the limit. (`bench/huge-trace.sh` sends
 * the full million to a running spanprof.)
 */
@MicronautTest
@Property(name = "test.sink", value = "recording")
@Property(name = "test.time", value = "manual")
@Property(name = "spanprof.assembly.max-spans-per-trace", value = "500")
@Property(name = "spanprof.assembly.max-buffered-spans", value = "3000")
@Property(name = "spanprof.analysis.max-queued-spans", value = "500")
@Property(name = "spanprof.analysis.workers", value = "1")
class HugeTraceTest {

  private static final int SPANS_PER_REQUEST = 500;

  @Inject ApplicationContext context;
  @Inject RecordingTraceSink sink;
  @Inject TraceAssembler assembler;
  @Inject TraceWorkers workers;
  @Inject ManualTimeSource time;
  @Inject MeterRegistry registry;

  @Test
  void oneTraceIdInManyRequests_fragmentsBoundedByTheLimit_queueWithinItsBound() throws Exception {
    TraceId trace = new TraceId(0x1A46E, 1);
    sink.hold();
    int accepted = 0;
    int status = 200;
    for (int request = 0; request < 20 && status == 200; request++) {
      status = TestTraffic.postProtobuf(context, request(trace, request));
      if (status == 200) {
        accepted += SPANS_PER_REQUEST;
      }
      assertThat(workers.queuedSpans()).isLessThanOrEqualTo(500);
      assertThat(assembler.bufferedSpans()).isLessThanOrEqualTo(3000);
    }
    assertThat(status).as("refused once the buffer holds 3 000 waiting spans").isEqualTo(429);
    assertThat(accepted).isEqualTo(500 + 3000);

    sink.release();
    // The sweeps hand the waiting fragments on as the released worker takes them.
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (analysedSpans() < accepted) {
      assertThat(System.nanoTime()).as("analysed within 30 s").isLessThan(deadline);
      time.advance(Duration.ofSeconds(5));
      assembler.sweep();
    }

    List<CompletedTrace> fragments = sink.traces();
    assertThat(fragments).extracting(CompletedTrace::spanCount).allMatch(spans -> spans == 500);
    assertThat(fragments.stream().mapToInt(CompletedTrace::spanCount).sum()).isEqualTo(accepted);
    assertThat(new Meters(registry).count("spanprof.received.spans", "transport", "http"))
        .isEqualTo(accepted);
    assertThat(assembler.bufferedSpans()).isZero();
  }

  private int analysedSpans() {
    return sink.traces().stream().mapToInt(CompletedTrace::spanCount).sum();
  }

  /** The {@code n}th request of 500 spans of {@code trace}, its span ids following the last's. */
  private static ExportTraceServiceRequest request(TraceId trace, int n) {
    Span.Builder[] spans = new Span.Builder[SPANS_PER_REQUEST];
    for (int i = 0; i < SPANS_PER_REQUEST; i++) {
      spans[i] = Otlp.span(trace, (long) n * SPANS_PER_REQUEST + i + 1);
    }
    return Otlp.request("svc", spans);
  }
}
