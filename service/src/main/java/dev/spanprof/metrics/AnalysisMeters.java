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
  private final ConcurrentHashMap<Operation, OperationCounters> operations = new ConcurrentHashMap<>();

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
      Operation operation = new Operation(span.serviceName(), span.name());
      OperationCounters counters = operations.get(operation);
      if (counters == null) {
        counters = operations.computeIfAbsent(operation, this::operationCounters);
      }
      if (!result.allocation()) {
        counters.spanTime.increment(span.durationNanos() / NANOS_PER_SECOND);
      }
      counters.selfTime.increment(result.selfTimeNs() / NANOS_PER_SECOND);
      counters.criticalPath.increment(result.criticalPathNs() / NANOS_PER_SECOND);
    }
    for (TraceProfile.ServicePoolStateTime share : profile.resourceTimeByServicePoolState()) {
      counter("spanprof.resource.time", "Nested-safe resource time by state",
          "service_name", share.service(), "pool", share.pool(), "state", share.state())
          .increment(share.resourceNs() / NANOS_PER_SECOND);
    }
    for (StateTime state : profile.states()) {
      counter("spanprof.trace.state", "Per-state trace time", "state", state.state(), "mode", "inclusive")
          .increment(state.inclusiveNs() / NANOS_PER_SECOND);
      counter("spanprof.trace.state", "Per-state trace time", "state", state.state(), "mode", "exclusive")
          .increment(state.exclusiveNs() / NANOS_PER_SECOND);
    }
  }

  private record Operation(String service, String name) {}

  /** The three per-operation counters, looked up once per span instead of once each. */
  private record OperationCounters(Counter spanTime, Counter selfTime, Counter criticalPath) {}

  private OperationCounters operationCounters(Operation operation) {
    String[] tags = {"service_name", operation.service(), "span_name", operation.name()};
    return new OperationCounters(
        counter("spanprof.span.time", "Σ span durations (naive: nesting counted twice)", tags),
        counter("spanprof.self.time", "Σ span self time", tags),
        counter("spanprof.critical.path", "Σ critical-path time", tags));
  }

  private Counter counter(String name, String description, String... tags) {
    List<String> key = new ArrayList<>(tags.length + 1);
    key.add(name);
    key.addAll(List.of(tags));
    return counters.computeIfAbsent(key, unused -> Counter.builder(name)
        .description(description)
        .baseUnit("seconds")
        .tags(tags)
        .register(registry));
  }
}
