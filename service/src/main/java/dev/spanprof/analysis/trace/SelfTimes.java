package dev.spanprof.analysis.trace;

import dev.spanprof.analysis.internal.ScratchArrays;

/**
 * Phase 5 of the per-trace analysis, semantics.md §2 "Self time": each span's duration less the
 * union of its children's intervals clipped to its own, children on any resource.
 */
final class SelfTimes {

  private SelfTimes() {}

  /** Per span, its self time. */
  static long[] of(TraceSpans spans, SpanTree tree, ScratchArrays arrays) {
    int n = spans.count;
    long[] start = spans.startNanos;
    long[] end = spans.endNanos;
    long[] selfNs = arrays.unclearedLongs(n);
    long[] clippedStart = arrays.unclearedLongs(n);
    long[] clippedEnd = arrays.unclearedLongs(n);
    int[] order = arrays.unclearedInts(n);
    for (int i = 0; i < n; i++) {
      int count = 0;
      // By start, the children are by clipped start too: clipping keeps their order.
      for (int k = tree.childStart[i]; k < tree.childStart[i + 1]; k++) {
        int c = tree.childrenByStart[k];
        clippedStart[c] = Math.max(start[c], start[i]);
        clippedEnd[c] = Math.min(end[c], end[i]);
        if (clippedEnd[c] > clippedStart[c]) {
          order[count++] = c;
        }
      }
      selfNs[i] = end[i] - start[i]
          - Intervals.unionLength(order, count, clippedStart, clippedEnd);
    }
    return selfNs;
  }
}
