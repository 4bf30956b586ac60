package dev.spanprof.analysis.trace;

import dev.spanprof.analysis.internal.ScratchArrays;

/**
 * The totals of the per-trace analysis, semantics.md §2 table: over the activity spans (every
 * span but allocation spans).
 *
 * @param startNanos their earliest start, 0 without one
 * @param spanTimeNs the sum of their durations
 * @param ttxNs the length of the union of their intervals
 * @param ttcNs their latest end less their earliest start
 * @param resourceTimeNs the sum over resources of each one's busy time
 */
record Totals(long startNanos, long spanTimeNs, long ttxNs, long ttcNs, long resourceTimeNs) {

  static Totals of(TraceSpans spans, ResourceTimeline timeline, ScratchArrays arrays) {
    long spanTime = 0;
    long minStart = Long.MAX_VALUE;
    long maxEnd = Long.MIN_VALUE;
    int[] timelineByStart = arrays.unclearedInts(spans.count);
    int timelineCount = 0;
    for (int k = 0; k < spans.count; k++) {
      int i = spans.byStart[k];
      if (!spans.allocation[i]) {
        spanTime += spans.endNanos[i] - spans.startNanos[i];
        minStart = Math.min(minStart, spans.startNanos[i]);
        maxEnd = Math.max(maxEnd, spans.endNanos[i]);
      }
      if (spans.onTimeline(i)) {
        timelineByStart[timelineCount++] = i;
      }
    }
    long ttx = Intervals.unionLength(timelineByStart, timelineCount, spans.startNanos,
        spans.endNanos);
    boolean any = minStart != Long.MAX_VALUE;
    return new Totals(any ? minStart : 0, spanTime, ttx, any ? maxEnd - minStart : 0,
        timeline.resourceTimeNs());
  }

  /** resourceTimeNs / ttxNs, 0 when ttx is 0. */
  double parallelism() {
    return ttxNs == 0 ? 0 : (double) resourceTimeNs / ttxNs;
  }
}
