package dev.spanprof.analysis.trace;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One trace's critical-path time per operation and per state, over its primary root's tree
 * (semantics.md §6: cp(o, T) and cp(σ, T)): the primary path's segments summed by the operation
 * and the state of the span holding each. They sum to the primary root's duration.
 *
 * @param byOperation per position in {@link TraceProfile#distinctOperations()}
 * @param byState per state name, in order of first appearance on the path
 */
public record PathTimes(long[] byOperation, Map<String, Long> byState) {

  /**
   * cp(o, T) alone, per position in {@link TraceProfile#distinctOperations()}: what the ranking
   * adds per trace, without the per-state map it does not need.
   */
  public static long[] byOperation(TraceProfile profile) {
    long[] byOperation = new long[profile.distinctOperations().size()];
    SpanSegments path = profile.criticalPath();
    for (int k = 0; k < path.size(); k++) {
      byOperation[profile.spans().get(path.span(k)).operation()] +=
          path.endNanos(k) - path.startNanos(k);
    }
    return byOperation;
  }

  public static PathTimes of(TraceProfile profile) {
    long[] byOperation = new long[profile.distinctOperations().size()];
    Map<String, Long> byState = new LinkedHashMap<>();
    SpanSegments path = profile.criticalPath();
    for (int k = 0; k < path.size(); k++) {
      TraceProfile.SpanProfile span = profile.spans().get(path.span(k));
      long lengthNs = path.endNanos(k) - path.startNanos(k);
      byOperation[span.operation()] += lengthNs;
      byState.merge(span.state(), lengthNs, Long::sum);
    }
    return new PathTimes(byOperation, byState);
  }
}
