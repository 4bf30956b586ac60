package dev.spanprof.metrics;

import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.assembly.TraceSink;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Singleton;

/**
 * The analysis stage until the per-trace analysis lands: it only counts, recording how many spans
 * each completed trace had (spanprof_trace_spans).
 */
@Singleton
final class TraceSizeSink implements TraceSink {

  private final DistributionSummary traceSpans;

  TraceSizeSink(MeterRegistry registry) {
    traceSpans = DistributionSummary.builder("spanprof.trace.spans")
        .description("Spans per completed trace")
        .register(registry);
  }

  @Override
  public void accept(CompletedTrace trace) {
    traceSpans.record(trace.spanCount());
  }
}
