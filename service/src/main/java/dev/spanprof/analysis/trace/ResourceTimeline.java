package dev.spanprof.analysis.trace;

import dev.spanprof.analysis.internal.IndexHeap;
import dev.spanprof.analysis.internal.ScratchArrays;

/**
 * Phase 3 of the per-trace analysis, semantics.md §2 "Resource timeline and states": per
 * resource, one sweep over its spans' boundaries in time order picks the chosen span of every
 * elementary segment, the best leaf among the active spans. From the chosen spans come the busy
 * time per resource, the resource time per state and per operation, and the timelines the state
 * and pool phases sweep.
 *
 * <p>Cost: O(n log n), plus O(n·d) for walking same-resource ancestors, where d is the nesting
 * depth on one resource: a span's activation updates the counts of its ancestors on its resource.
 * {@code AnalysisScalingBenchmark} shows it on traces of 10 000 and 100 000 spans.
 */
final class ResourceTimeline {

  /** Per span, how long it was its resource's chosen span. */
  final long[] chosenNs;
  /** Per resource id, the length of the union of its activity spans. */
  final long[] busyNs;
  /** Per state id, how long it was some resource's state, summed over resources. */
  final long[] stateResourceNs;
  /** Per operation id, how long one of its spans was chosen, summed over resources. */
  final long[] operationResourceNs;
  /** Every resource's elementary segments, each of its chosen span, adjacent ones merged. */
  final Segments segments;
  /**
   * The same segments by their chosen span's state, adjacent equal ones merged: all the state
   * sweep needs is each state's union, and a resource's consecutive segments mostly share their
   * state, so it sorts a few runs per resource instead of every segment.
   */
  final Segments stateRuns;

  private final TraceSpans spans;

  private ResourceTimeline(TraceSpans spans, SpanTree tree, AnalysisScratch scratch) {
    this.spans = spans;
    ScratchArrays arrays = scratch.arrays;
    int n = spans.count;
    int resourceCount = spans.resources.size();
    chosenNs = arrays.longs(n);
    segments = scratch.segments;
    stateRuns = scratch.stateRuns;
    sweep(resourceParents(tree, arrays), arrays);
    // The sums by resource, state and operation are taken from each span's chosen time
    // afterwards: an elementary segment costs one addition, not one per sum.
    busyNs = arrays.longs(resourceCount);
    stateResourceNs = arrays.longs(spans.states.size());
    operationResourceNs = arrays.longs(spans.operations.size());
    for (int i = 0; i < n; i++) {
      busyNs[spans.resource[i]] += chosenNs[i];
      stateResourceNs[spans.state[i]] += chosenNs[i];
      operationResourceNs[spans.operation[i]] += chosenNs[i];
    }
  }

  static ResourceTimeline of(TraceSpans spans, SpanTree tree, AnalysisScratch scratch) {
    return new ResourceTimeline(spans, tree, scratch);
  }

  /** The sum of every resource's busy time: semantics.md's resourceTimeNs. */
  long resourceTimeNs() {
    long total = 0;
    for (int r = 0; r < spans.resources.size(); r++) {
      total += busyNs[r];
    }
    return total;
  }

  /**
   * For each resource, walks its span boundaries in time order keeping the active spans and,
   * for every span, how many of its same-resource descendants are active. In each elementary
   * segment the chosen span is the best active span with no active descendant (a leaf).
   */
  private void sweep(int[] resourceParent, ScratchArrays arrays) {
    int n = spans.count;
    long[] start = spans.startNanos;
    long[] end = spans.endNanos;
    int resourceCount = spans.resources.size();
    int[] activeDescendants = arrays.ints(n);

    // Resource r's timeline spans are starts[groupStart[r], groupStart[r + 1]) by start, and the
    // same range of ends by end.
    int[] timelineResource = arrays.unclearedInts(n);
    for (int i = 0; i < n; i++) {
      timelineResource[i] = spans.onTimeline(i) ? spans.resource[i] : -1;
    }
    int[] groupStart = arrays.ints(resourceCount + 1);
    Groups.countStarts(timelineResource, n, resourceCount, groupStart);
    int[] starts = arrays.unclearedInts(n);
    int[] ends = arrays.unclearedInts(n);
    int[] fill = arrays.unclearedInts(resourceCount);
    Groups.placeMembers(timelineResource, n, resourceCount, groupStart, spans.byStart, starts,
        fill);
    Groups.placeMembers(timelineResource, n, resourceCount, groupStart, spans.byEnd, ends, fill);
    boolean[] active = arrays.booleans(n);
    // The active spans with no active descendant, best first: the first is the chosen span.
    IndexHeap leaves =
        new IndexHeap(arrays.unclearedInts(n), arrays.unclearedInts(n), n, this::choiceBefore);
    for (int r = 0; r < resourceCount; r++) {
      int groupEnd = groupStart[r + 1];
      int nextStart = groupStart[r];
      int nextEnd = groupStart[r];
      long previous = 0;
      while (nextEnd < groupEnd) {
        long t = nextStart < groupEnd ? Math.min(start[starts[nextStart]], end[ends[nextEnd]])
            : end[ends[nextEnd]];
        if (!leaves.isEmpty() && t > previous) {
          int chosen = leaves.first();
          chosenNs[chosen] += t - previous;
          segments.add(previous, t, chosen);
          stateRuns.add(previous, t, spans.state[chosen]);
        }
        // Half-open intervals: what ends at t is gone before what starts at t begins.
        while (nextEnd < groupEnd && end[ends[nextEnd]] == t) {
          int s = ends[nextEnd++];
          active[s] = false;
          leaves.remove(s);
          for (int a = resourceParent[s]; a >= 0; a = resourceParent[a]) {
            if (--activeDescendants[a] == 0 && active[a]) {
              leaves.add(a);
            }
          }
        }
        while (nextStart < groupEnd && start[starts[nextStart]] == t) {
          int s = starts[nextStart++];
          active[s] = true;
          if (activeDescendants[s] == 0) {
            leaves.add(s);
          }
          for (int a = resourceParent[s]; a >= 0; a = resourceParent[a]) {
            if (activeDescendants[a]++ == 0 && active[a]) {
              leaves.remove(a);
            }
          }
        }
        previous = t;
      }
    }
  }

  /** Each activity span's nearest ancestor on the same resource (any depth), or -1. */
  private int[] resourceParents(SpanTree tree, ScratchArrays arrays) {
    int n = spans.count;
    int[] resourceParent = arrays.unclearedInts(n);
    for (int i = 0; i < n; i++) {
      resourceParent[i] = -1;
      if (spans.allocation[i]) {
        continue;
      }
      for (int a = tree.parent[i]; a >= 0; a = tree.parent[a]) {
        if (spans.resource[a] == spans.resource[i] && !spans.allocation[a]) {
          resourceParent[i] = a;
          break;
        }
      }
    }
    return resourceParent;
  }

  /** Orders leaves best first; the position breaks the last tie so the order is total. */
  private boolean choiceBefore(int a, int b) {
    return better(a, b) || !better(b, a) && a < b;
  }

  /** Dominant state first, then latest start, then span id ascending. */
  private boolean better(int a, int b) {
    int stateA = spans.state[a];
    int stateB = spans.state[b];
    if (stateA != stateB) {
      return spans.dominates(stateA, stateB);
    }
    if (spans.startNanos[a] != spans.startNanos[b]) {
      return spans.startNanos[a] > spans.startNanos[b];
    }
    return Long.compareUnsigned(spans.span[a].spanId(), spans.span[b].spanId()) < 0;
  }
}
