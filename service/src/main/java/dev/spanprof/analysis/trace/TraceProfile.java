package dev.spanprof.analysis.trace;

import dev.spanprof.analysis.pool.ChosenSegment;
import dev.spanprof.span.Operation;
import dev.spanprof.span.SpanKind;
import dev.spanprof.span.SpanStatus;
import dev.spanprof.span.TraceId;
import java.util.List;
import java.util.Map;

/**
 * Everything spanprof computes for one trace (semantics.md §2–3). All times are integer
 * nanoseconds; pool figures are doubles because capacities and cores may be fractional.
 *
 * @param traceId the trace
 * @param spanCount all spans, allocation spans and duplicates included
 * @param startNanos the earliest start of an activity span (where TTC starts), 0 without one
 * @param spanTimeNs Σ durations of activity spans (double counts nesting)
 * @param ttxNs length of the union of activity intervals
 * @param ttcNs latest end − earliest start of activity spans
 * @param resourceTimeNs Σ over resources of the union of that resource's intervals
 * @param parallelism resourceTimeNs / ttxNs, 0 when ttx is 0
 * @param criticalPathNs Σ critical-path time over the primary root's tree (its duration)
 * @param states per state, in order of first appearance (as are the next two: the analysis
 *     leaves ordering by name to whoever shows them)
 * @param resources per resource
 * @param operations per operation
 * @param distinctOperations every operation of the trace once, in order of first appearance:
 *     what {@link SpanProfile#operation} indexes, so that per-operation consumers look each up
 *     once per trace rather than once per span
 * @param spans per span, in the order of the analysed list (so results can be attached to them)
 * @param pools per allocation span, by pool id then start
 * @param resourceTimeByServicePoolState resource time split by the chosen span's service, pool
 *     and state (the labels of spanprof_resource_time_seconds_total)
 * @param segments what each resource's chosen span was, over time: the input of the pool windows
 *     that account for many traces together; empty from an analyzer that does not keep them
 * @param primaryRoot the position of the primary root span (earliest, then longest root), or -1
 * @param lanes the resource lanes: every resource's chosen span over time, resource by resource
 *     in order of first appearance, each in time order, adjacent segments of one span merged
 * @param criticalPath the primary root's critical path in time order: which span held it over
 *     which interval; the lengths sum to {@code criticalPathNs}
 * @param orphanCount spans naming a parent id absent from the trace, walked as roots (§2)
 */
public record TraceProfile(
    TraceId traceId,
    int spanCount,
    long startNanos,
    long spanTimeNs,
    long ttxNs,
    long ttcNs,
    long resourceTimeNs,
    double parallelism,
    long criticalPathNs,
    List<StateTime> states,
    List<ResourceBusy> resources,
    List<OperationTime> operations,
    List<Operation> distinctOperations,
    List<SpanProfile> spans,
    List<PoolUsage> pools,
    List<ServicePoolStateTime> resourceTimeByServicePoolState,
    List<ChosenSegment> segments,
    int primaryRoot,
    SpanSegments lanes,
    SpanSegments criticalPath,
    int orphanCount) {

  /** Per state: Σ_r time in it, time any resource is in it, time it dominates. */
  public record StateTime(String state, long resourceNs, long inclusiveNs, long exclusiveNs) {}

  /** Time a resource was busy: the union of its spans' intervals. */
  public record ResourceBusy(String resource, long busyNs) {}

  /** Resource time during which a span of this operation was the chosen span. */
  public record OperationTime(String service, String name, long resourceTimeNs) {}

  /**
   * What was computed for one span.
   *
   * @param onCriticalPath the critical-path walk reached the span (it may still get 0 time)
   * @param allocation the span declares pool capacity; it is left out of the timeline figures
   * @param parentIndex the position of the span's parent in the span tree (first span of an id,
   *     cycles broken), or -1 for a root or a duplicate
   * @param operation the position of the span's operation in {@link #distinctOperations}
   * @param startNanos the span's start as received
   * @param endNanos the span's end as received (or its start, when it ended before it)
   * @param orphan the span names a parent id absent from the trace (semantics.md §2)
   * @param status the span's OTLP status
   * @param statusMessage its status message when ERROR, else {@code ""}
   */
  public record SpanProfile(
      long spanId,
      String resource,
      String pool,
      String state,
      long selfTimeNs,
      long criticalPathNs,
      boolean onCriticalPath,
      boolean allocation,
      int parentIndex,
      int operation,
      SpanKind kind,
      long startNanos,
      long endNanos,
      boolean orphan,
      SpanStatus status,
      String statusMessage) {}

  /**
   * Utilization and CPU attribution of one allocation span's pool over the span's interval.
   *
   * @param utilization U_c per category, and U_idle under {@code "idle"}
   * @param attributionNs core-nanoseconds for {@code "cpu"}, {@code "idle"} and each wait state
   */
  public record PoolUsage(
      String pool,
      double capacity,
      long startNanos,
      double availableNs,
      Map<String, Double> utilization,
      Map<String, Double> attributionNs) {}

  /** The same profile without its segments, for keeping: they are only needed once. */
  public TraceProfile withoutSegments() {
    return new TraceProfile(traceId, spanCount, startNanos, spanTimeNs, ttxNs, ttcNs,
        resourceTimeNs, parallelism, criticalPathNs, states, resources, operations,
        distinctOperations, spans, pools, resourceTimeByServicePoolState, List.of(), primaryRoot,
        lanes, criticalPath, orphanCount);
  }

  /**
   * Spans whose status is ERROR (semantics.md §2): counted when asked for, by the API, not on the
   * analysis stage's path.
   */
  public int errorCount() {
    int errors = 0;
    for (SpanProfile span : spans) {
      errors += span.status() == SpanStatus.ERROR ? 1 : 0;
    }
    return errors;
  }

  /** Resource time by the chosen span's service, pool and state. */
  public record ServicePoolStateTime(String service, String pool, String state, long resourceNs) {}
}
