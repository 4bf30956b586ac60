package dev.spanprof.metrics;

import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.analysis.trace.TraceProfile.SpanProfile;
import dev.spanprof.analysis.trace.TraceProfile.StateTime;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.span.Operation;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.stages.ProfileConsumer;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Singleton;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The per-trace figures as Prometheus counters (contract.md), in seconds:
 * spanprof_span_time_seconds_total and spanprof_self_time_seconds_total and
 * spanprof_critical_path_seconds_total by operation, spanprof_resource_time_seconds_total by
 * service, pool and state, spanprof_trace_state_seconds_total by state and mode; plus
 * spanprof_trace_spans, spans per analysed trace, a histogram like the other distributions, so
 * that a dashboard can show how large traces are and alert on those near the per-trace limit.
 *
 * <p>Summed over operations, span time equals Σ spanTimeNs of the traces (allocation spans are
 * left out of both); resource time by service, pool and state sums to Σ resourceTimeNs.
 * Operation labels are bounded only by what senders send until the distributions work adds a
 * series limit.
 */
@Singleton
public final class AnalysisMeters implements ProfileConsumer {

  private static final double NANOS_PER_SECOND = 1e9;
  /** Upper bounds of spanprof_trace_spans' buckets: 1, 2, 5 per decade up to 100 000. */
  private static final double[] TRACE_SPANS_BUCKETS = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000,
      2_000, 5_000, 10_000, 20_000, 50_000, 100_000};
  /** The most operations a trace may have for its thread to keep their sums' array. */
  private static final int MAX_REUSED_OPERATIONS = 1024;

  private final MeterRegistry registry;
  private final DistributionSummary traceSpans;
  /** Per operation: span time, self time, critical-path time. */
  private final ConcurrentHashMap<Operation, SecondsCounters> operations = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<ServicePoolState, SecondsCounters> resourceTime =
      new ConcurrentHashMap<>();
  /**
   * Per analysis thread, the array the trace at hand sums its operations' times in, reused from
   * trace to trace: an array per trace was about 11 B per span, 7 % of what the analysis stage
   * allocated (PipelineBenchmark).
   */
  private final ThreadLocal<double[]> operationSums =
      ThreadLocal.withInitial(() -> new double[3 * 16]);
  /** Per state: inclusive, exclusive. */
  private final ConcurrentHashMap<String, SecondsCounters> traceStates = new ConcurrentHashMap<>();

  AnalysisMeters(MeterRegistry registry) {
    this.registry = registry;
    this.traceSpans = DistributionSummary.builder("spanprof.trace.spans")
        .description("Spans per analysed trace")
        .serviceLevelObjectives(TRACE_SPANS_BUCKETS)
        .register(registry);
  }

  @Override
  public void accept(CompletedTrace trace, TraceProfile profile, long arrivalNanos) {
    traceSpans.record(trace.spanCount());
    // Summed per operation first: one lookup and one increment of three counters per operation
    // of the trace, not per span.
    List<Operation> distinct = profile.distinctOperations();
    // Per operation o: span time at 3o, self time at 3o + 1, critical-path time at 3o + 2.
    double[] timesNs = operationSums(distinct.size());
    List<SpanRecord> spans = trace.spans();
    for (int i = 0; i < spans.size(); i++) {
      SpanProfile result = profile.spans().get(i);
      int o = 3 * result.operation();
      if (!result.allocation()) {
        timesNs[o] += spans.get(i).durationNanos();
      }
      timesNs[o + 1] += result.selfTimeNs();
      timesNs[o + 2] += result.criticalPathNs();
    }
    for (int o = 0; o < distinct.size(); o++) {
      SecondsCounters counters = operations.get(distinct.get(o));
      if (counters == null) {
        counters = operations.computeIfAbsent(distinct.get(o), this::operationCounters);
      }
      counters.add(timesNs[3 * o] / NANOS_PER_SECOND, timesNs[3 * o + 1] / NANOS_PER_SECOND,
          timesNs[3 * o + 2] / NANOS_PER_SECOND);
    }
    for (TraceProfile.ServicePoolStateTime share : profile.resourceTimeByServicePoolState()) {
      ServicePoolState key = new ServicePoolState(share.service(), share.pool(), share.state());
      SecondsCounters counter = resourceTime.get(key);
      if (counter == null) {
        counter = resourceTime.computeIfAbsent(key, unused -> new SecondsCounters(1).register(0,
            registry, "spanprof.resource.time", "Nested-safe resource time by state",
            "service_name", share.service(), "pool", share.pool(), "state", share.state()));
      }
      counter.add(share.resourceNs() / NANOS_PER_SECOND);
    }
    for (StateTime state : profile.states()) {
      SecondsCounters counters = traceStates.get(state.state());
      if (counters == null) {
        counters = traceStates.computeIfAbsent(state.state(), this::stateCounters);
      }
      counters.add(state.inclusiveNs() / NANOS_PER_SECOND, state.exclusiveNs() / NANOS_PER_SECOND);
    }
  }

  /** A zeroed array of three sums for each of {@code operations}, the thread's when it fits. */
  private double[] operationSums(int operations) {
    double[] sums = operationSums.get();
    if (sums.length < 3 * operations) {
      sums = new double[3 * operations];
      if (operations <= MAX_REUSED_OPERATIONS) {
        operationSums.set(sums);
      }
      return sums;
    }
    Arrays.fill(sums, 0, 3 * operations, 0.0);
    return sums;
  }

  private record ServicePoolState(String service, String pool, String state) {}

  private SecondsCounters operationCounters(Operation operation) {
    String[] tags = {"service_name", operation.service(), "span_name", operation.name()};
    return new SecondsCounters(3)
        .register(0, registry, "spanprof.span.time",
            "Σ span durations (naive: nesting counted twice)", tags)
        .register(1, registry, "spanprof.self.time", "Σ span self time", tags)
        .register(2, registry, "spanprof.critical.path", "Σ critical-path time", tags);
  }

  private SecondsCounters stateCounters(String state) {
    String description = "Per-state trace time";
    return new SecondsCounters(2)
        .register(0, registry, "spanprof.trace.state", description, "state", state, "mode", "inclusive")
        .register(1, registry, "spanprof.trace.state", description, "state", state, "mode", "exclusive");
  }
}
