package dev.spanprof.metrics;

import dev.spanprof.analysis.Operation;
import dev.spanprof.analysis.SpanRecord;
import dev.spanprof.analysis.TraceProfile;
import dev.spanprof.analysis.TraceProfile.SpanProfile;
import dev.spanprof.analysis.TraceProfile.StateTime;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.profile.ProfileConsumer;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Singleton;
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
  private final ConcurrentHashMap<Operation, OperationCounters> operations = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<ServicePoolState, SumCounter> resourceTime = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, StateCounters> traceStates = new ConcurrentHashMap<>();

  AnalysisMeters(MeterRegistry registry) {
    this.registry = registry;
    this.traceSpans = DistributionSummary.builder("spanprof.trace.spans")
        .description("Spans per analysed trace")
        .register(registry);
  }

  @Override
  public void accept(CompletedTrace trace, TraceProfile profile) {
    traceSpans.record(trace.spanCount());
    // Summed per operation first: one counter lookup and three increments per operation of the
    // trace, not per span.
    List<Operation> distinct = profile.distinctOperations();
    double[] spanTimeNs = new double[distinct.size()];
    double[] selfTimeNs = new double[distinct.size()];
    double[] criticalPathNs = new double[distinct.size()];
    List<SpanRecord> spans = trace.spans();
    for (int i = 0; i < spans.size(); i++) {
      SpanProfile result = profile.spans().get(i);
      int o = result.operation();
      if (!result.allocation()) {
        spanTimeNs[o] += spans.get(i).durationNanos();
      }
      selfTimeNs[o] += result.selfTimeNs();
      criticalPathNs[o] += result.criticalPathNs();
    }
    for (int o = 0; o < distinct.size(); o++) {
      OperationCounters counters = operations.get(distinct.get(o));
      if (counters == null) {
        counters = operations.computeIfAbsent(distinct.get(o), this::operationCounters);
      }
      counters.spanTime.add(spanTimeNs[o] / NANOS_PER_SECOND);
      counters.selfTime.add(selfTimeNs[o] / NANOS_PER_SECOND);
      counters.criticalPath.add(criticalPathNs[o] / NANOS_PER_SECOND);
    }
    for (TraceProfile.ServicePoolStateTime share : profile.resourceTimeByServicePoolState()) {
      ServicePoolState key = new ServicePoolState(share.service(), share.pool(), share.state());
      SumCounter counter = resourceTime.get(key);
      if (counter == null) {
        counter = resourceTime.computeIfAbsent(key, unused -> counter(
            "spanprof.resource.time", "Nested-safe resource time by state",
            "service_name", share.service(), "pool", share.pool(), "state", share.state()));
      }
      counter.add(share.resourceNs() / NANOS_PER_SECOND);
    }
    for (StateTime state : profile.states()) {
      StateCounters counters = traceStates.get(state.state());
      if (counters == null) {
        counters = traceStates.computeIfAbsent(state.state(), this::stateCounters);
      }
      counters.inclusive.add(state.inclusiveNs() / NANOS_PER_SECOND);
      counters.exclusive.add(state.exclusiveNs() / NANOS_PER_SECOND);
    }
  }

  /** The three per-operation counters, looked up once instead of once each. */
  private record OperationCounters(
      SumCounter spanTime, SumCounter selfTime, SumCounter criticalPath) {}

  private record ServicePoolState(String service, String pool, String state) {}

  private record StateCounters(SumCounter inclusive, SumCounter exclusive) {}

  private OperationCounters operationCounters(Operation operation) {
    String[] tags = {"service_name", operation.service(), "span_name", operation.name()};
    return new OperationCounters(
        counter("spanprof.span.time", "Σ span durations (naive: nesting counted twice)", tags),
        counter("spanprof.self.time", "Σ span self time", tags),
        counter("spanprof.critical.path", "Σ critical-path time", tags));
  }

  private StateCounters stateCounters(String state) {
    return new StateCounters(
        counter("spanprof.trace.state", "Per-state trace time", "state", state, "mode", "inclusive"),
        counter("spanprof.trace.state", "Per-state trace time", "state", state, "mode", "exclusive"));
  }

  private SumCounter counter(String name, String description, String... tags) {
    return new SumCounter(registry, name, description, "seconds", tags);
  }
}
