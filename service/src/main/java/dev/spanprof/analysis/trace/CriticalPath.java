package dev.spanprof.analysis.trace;

import dev.spanprof.analysis.internal.IndexSort;
import dev.spanprof.analysis.internal.ScratchArrays;
import dev.spanprof.span.SpanKind;

/**
 * Phase 6 of the per-trace analysis, semantics.md §2 "Critical path": every root walked, primary
 * root first, iteratively (traces can be deep).
 *
 * <p>Walk(s, lo, hi): cursor = hi; children by clipped end descending (ties: longer first, then
 * span id); a child ending after the cursor is skipped, else s gets cursor − child end, the child
 * is walked, and the cursor moves to the child's start; finally s gets cursor − lo. A child ending
 * exactly at the cursor is eligible, so back-to-back children stay on the path.
 */
final class CriticalPath {

  /** Per span, the critical time it got. */
  final long[] criticalNs;
  /** Per span, whether the walk reached it. */
  final boolean[] onPath;
  /** The primary root: earliest, then longest, then lowest span id; -1 without a root. */
  final int primaryRoot;
  /** The critical time of the primary root's tree: its duration. */
  final long primaryNs;
  /**
   * The primary root's path as the walk meets it, latest first: the cursor only ever moves back,
   * so each segment ends where the one before it starts.
   */
  final Segments primaryPath;

  private final TraceSpans spans;
  private final SpanTree tree;
  private final ScratchArrays arrays;
  /** Each span's interval clipped to its parent's walked part, set when the parent is walked. */
  private final long[] clippedFrom;
  private final long[] clippedTo;
  /** The walk's frames' eligible children, and the frames (see {@link #walk}). */
  private final int[] walkChildren;
  private final int[] walkStack;
  private final int[] walkNext;
  private final int[] walkEnd;
  private final long[] walkCursor;
  /** Span ids with the sign bit flipped, so that signed order is the ids' unsigned order. */
  private long[] unsignedSpanIds;

  private CriticalPath(TraceSpans spans, SpanTree tree, AnalysisScratch scratch) {
    ScratchArrays arrays = scratch.arrays;
    this.spans = spans;
    this.tree = tree;
    this.arrays = arrays;
    this.primaryPath = scratch.pathSegments;
    int n = spans.count;
    criticalNs = arrays.longs(n);
    onPath = arrays.booleans(n);
    clippedFrom = arrays.unclearedLongs(n);
    clippedTo = arrays.unclearedLongs(n);
    walkChildren = arrays.unclearedInts(n);
    walkStack = arrays.unclearedInts(n);
    walkNext = arrays.unclearedInts(n);
    walkEnd = arrays.unclearedInts(n);
    walkCursor = arrays.unclearedLongs(n);
    // The other roots' trees are disjoint from the primary root's and from each other, so their
    // order changes nothing.
    int primary = -1;
    for (int i = 0; i < n; i++) {
      if (tree.isRoot(i) && (primary < 0 || precedes(i, primary))) {
        primary = i;
      }
    }
    primaryRoot = primary;
    primaryNs = primary < 0 ? 0 : walk(primary, primaryPath);
    for (int i = 0; i < n; i++) {
      if (tree.isRoot(i) && i != primary) {
        walk(i, null);
      }
    }
  }

  static CriticalPath of(TraceSpans spans, SpanTree tree, AnalysisScratch scratch) {
    return new CriticalPath(spans, tree, scratch);
  }

  /** Root a comes before root b: earlier, then longer, then by unsigned span id. */
  private boolean precedes(int a, int b) {
    long[] start = spans.startNanos;
    long[] end = spans.endNanos;
    if (start[a] != start[b]) {
      return start[a] < start[b];
    }
    long durationA = end[a] - start[a];
    long durationB = end[b] - start[b];
    if (durationA != durationB) {
      return durationA > durationB;
    }
    return Long.compareUnsigned(spans.span[a].spanId(), spans.span[b].spanId()) < 0;
  }

  /**
   * Walks the tree of {@code root}, iteratively; returns the critical time its spans got.
   * {@link #walkStack} holds the spans being walked, innermost last, and each of them its frame:
   * its eligible children, in walk order, at {@code walkChildren[walkNext[s], walkEnd[s])}, and
   * its cursor. The frames take {@link #walkChildren} as a stack: a frame's children start where
   * its parent frame's end, and a span is a child of one span only, so they never need more than
   * n places, and a span's frame can be kept at its own position.
   *
   * @param path where the walk's segments go, latest first; null when nobody wants them
   */
  private long walk(int root, Segments path) {
    clippedFrom[root] = spans.startNanos[root];
    clippedTo[root] = spans.endNanos[root];
    open(root, 0);
    onPath[root] = true;
    walkStack[0] = root;
    int depth = 1;
    long total = 0;
    while (depth > 0) {
      int s = walkStack[depth - 1];
      long cursor = walkCursor[s];
      int next = walkNext[s];
      int frameEnd = walkEnd[s];
      while (next < frameEnd && clippedTo[walkChildren[next]] > cursor) {
        next++;
      }
      if (next < frameEnd) {
        int child = walkChildren[next];
        walkNext[s] = next + 1;
        criticalNs[s] += cursor - clippedTo[child];
        total += cursor - clippedTo[child];
        record(path, s, clippedTo[child], cursor);
        walkCursor[s] = clippedFrom[child];
        onPath[child] = true;
        open(child, frameEnd);
        walkStack[depth++] = child;
      } else {
        criticalNs[s] += cursor - clippedFrom[s];
        total += cursor - clippedFrom[s];
        record(path, s, clippedFrom[s], cursor);
        depth--;
      }
    }
    return total;
  }

  private static void record(Segments path, int s, long from, long to) {
    if (path != null && to > from) {
      path.add(from, to, s);
    }
  }

  /**
   * Opens the frame of s, walked over [clippedFrom[s], clippedTo[s]): its eligible children,
   * clipped to that, by clipped end descending, placed in {@link #walkChildren} from
   * {@code from}; its cursor at the interval's end.
   */
  private void open(int s, int from) {
    long lo = clippedFrom[s];
    long hi = clippedTo[s];
    boolean producer = spans.span[s].kind() == SpanKind.PRODUCER;
    int count = from;
    int[] eligible = walkChildren;
    // Latest end first, which clipping keeps: the eligible children come out in walk order but
    // for ties.
    for (int k = tree.childStart[s + 1] - 1; k >= tree.childStart[s]; k--) {
      int c = tree.childrenByEnd[k];
      // A CONSUMER under a PRODUCER runs after the hand-off: it does not block its parent.
      if (producer && spans.span[c].kind() == SpanKind.CONSUMER) {
        continue;
      }
      clippedFrom[c] = Math.max(spans.startNanos[c], lo);
      clippedTo[c] = Math.min(spans.endNanos[c], hi);
      // A child entirely outside its parent is dropped with its subtree.
      if (clippedTo[c] > clippedFrom[c]) {
        eligible[count++] = c;
      }
    }
    // Children ending together (rare): longer first, then span id; stable sorts from the least
    // significant key.
    for (int tieFrom = from, tieTo; tieFrom < count; tieFrom = tieTo) {
      tieTo = tieFrom + 1;
      while (tieTo < count && clippedTo[eligible[tieTo]] == clippedTo[eligible[tieFrom]]) {
        tieTo++;
      }
      if (tieTo - tieFrom > 1) {
        IndexSort.byKey(eligible, tieFrom, tieTo, unsignedSpanIds());
        IndexSort.byKey(eligible, tieFrom, tieTo, clippedFrom);
      }
    }
    walkNext[s] = from;
    walkEnd[s] = count;
    walkCursor[s] = hi;
  }

  private long[] unsignedSpanIds() {
    if (unsignedSpanIds == null) {
      unsignedSpanIds = arrays.unclearedLongs(spans.count);
      for (int i = 0; i < spans.count; i++) {
        unsignedSpanIds[i] = spans.span[i].spanId() ^ Long.MIN_VALUE;
      }
    }
    return unsignedSpanIds;
  }
}
