package dev.spanprof.metrics;

import dev.spanprof.analysis.SpanRecord;
import dev.spanprof.analysis.TraceProfile;
import dev.spanprof.analysis.TraceProfile.SpanProfile;
import dev.spanprof.analysis.TraceProfile.StateTime;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.profile.ProfileConsumer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The per-trace figures as Prometheus counters (contract.md), in seconds:
 * spanprof_span_time_seconds_total and spanprof_self_time_seconds_total and
 * spanprof_critical_path_seconds_total by operation, spanprof_resource_time_seconds_total by
 * service, pool and state, spanprof_trace_state_seconds_total by state and mode; plus
 * spanprof_trace_spans, spans per analysed trace.
 *
 * <p>Summed over operations, span time equals Σ spanTimeNs of the traces (allocation spans are
 * left out of both); resource time by service, pool and state sums to Σ resourceTimeNs.
 * Operation labels are bounded only by what senders send until the distributions work adds a
 * series limit.
 */
@Singleton
final class AnalysisMeters implements ProfileConsumer {

  private static final double NANOS_PER_SECOND = 1e9;

  private final MeterRegistry registry;
  private final DistributionSummary traceSpans;
  private final ConcurrentHashMap<List<String>, Counter> counters = new ConcurrentHashMap<>();

  AnalysisMeters(MeterRegistry registry) {
    this.registry = registry;
    this.traceSpans = DistributionSummary.builder("spanprof.trace.spans")
        .description("Spans per analysed trace")
        .register(registry);
  }

  @Override
  public void accept(CompletedTrace trace, TraceProfile profile) {
    traceSpans.record(trace.spanCount());
    List<SpanRecord> spans = trace.spans();
    for (int i = 0; i < spans.size(); i++) {
      SpanRecord span = spans.get(i);
      SpanProfile result = profile.spans().get(i);
      String service = span.serviceName();
      String name = span.name();
      if (!result.allocation()) {
        add("spanprof.span.time", "Σ span durations (naive: nesting counted twice)",
            span.durationNanos(), "service_name", service, "span_name", name);
      }
      add("spanprof.self.time", "Σ span self time", result.selfTimeNs(),
          "service_name", service, "span_name", name);
      add("spanprof.critical.path", "Σ critical-path time", result.criticalPathNs(),
          "service_name", service, "span_name", name);
    }
    for (TraceProfile.ServicePoolStateTime share : profile.resourceTimeByServicePoolState()) {
      add("spanprof.resource.time", "Nested-safe resource time by state", share.resourceNs(),
          "service_name", share.service(), "pool", share.pool(), "state", share.state());
    }
    for (StateTime state : profile.states()) {
      add("spanprof.trace.state", "Per-state trace time", state.inclusiveNs(),
          "state", state.state(), "mode", "inclusive");
      add("spanprof.trace.state", "Per-state trace time", state.exclusiveNs(),
          "state", state.state(), "mode", "exclusive");
    }
  }

  private void add(String name, String description, long nanos, String... tags) {
    if (nanos == 0) {
      return;
    }
    List<String> key = new ArrayList<>(tags.length + 1);
    key.add(name);
    key.addAll(List.of(tags));
    counters.computeIfAbsent(key, unused -> Counter.builder(name)
            .description(description)
            .baseUnit("seconds")
            .tags(tags)
            .register(registry))
        .increment(nanos / NANOS_PER_SECOND);
  }
}
