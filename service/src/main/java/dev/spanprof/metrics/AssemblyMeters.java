package dev.spanprof.metrics;

import dev.spanprof.assembly.AssemblyListener;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.assembly.Completion;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Singleton;
import java.util.EnumMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Assembly counters: spanprof_traces_total{completion} and spanprof_completed_spans_total
 * {completion} count traces (and their spans) handed to the analysis; spanprof_late_spans_total
 * spans that arrived after their trace; spanprof_analysis_failed_spans_total spans of traces the
 * analysis threw on. At any instant, spanprof_received_spans_total = spanprof_buffered_spans +
 * Σ spanprof_completed_spans_total.
 */
@Singleton
final class AssemblyMeters implements AssemblyListener {

  private static final Logger LOG = LoggerFactory.getLogger(AssemblyMeters.class);

  private final Map<Completion, Counter> traces = new EnumMap<>(Completion.class);
  private final Map<Completion, Counter> spans = new EnumMap<>(Completion.class);
  private final Counter lateSpans;
  private final Counter failedSpans;

  AssemblyMeters(MeterRegistry registry) {
    for (Completion completion : Completion.values()) {
      traces.put(completion, Counter.builder("spanprof.traces")
          .description("Traces analysed, by why they completed")
          .tag("completion", completion.label())
          .register(registry));
      spans.put(completion, Counter.builder("spanprof.completed.spans")
          .description("Spans of completed traces handed to the analysis")
          .tag("completion", completion.label())
          .register(registry));
    }
    lateSpans = Counter.builder("spanprof.late.spans")
        .description("Spans arriving after their trace was analysed")
        .register(registry);
    failedSpans = Counter.builder("spanprof.analysis.failed.spans")
        .description("Spans of traces whose analysis failed")
        .register(registry);
  }

  @Override
  public void onLateSpans(int count) {
    lateSpans.increment(count);
  }

  @Override
  public void onTraceCompleted(CompletedTrace trace) {
    traces.get(trace.completion()).increment();
    spans.get(trace.completion()).increment(trace.spanCount());
  }

  @Override
  public void onSinkFailure(CompletedTrace trace, RuntimeException failure) {
    failedSpans.increment(trace.spanCount());
    LOG.warn("analysis of trace {} ({} spans) failed; skipping", trace.traceId(),
        trace.spanCount(), failure);
  }
}
