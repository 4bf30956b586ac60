package dev.spanprof.analysis.trace;

import dev.spanprof.analysis.internal.ScratchArrays;

/**
 * Phase 2 of the per-trace analysis, semantics.md §1–2: the span tree. The first span of an id
 * builds the tree (duplicates count everywhere else); a span whose parent is absent, or which is
 * on a parent cycle, is a root.
 */
final class SpanTree {

  /** Each span's parent position, or -1 for a root or a duplicate. */
  final int[] parent;
  /** Whether the span is in the tree: false for a later span of an id already seen. */
  final boolean[] inTree;
  /**
   * Span i's children are {@code childrenByStart[childStart[i], childStart[i + 1])}, by start;
   * the same range of {@link #childrenByEnd} holds them by end.
   */
  final int[] childStart;
  final int[] childrenByStart;
  final int[] childrenByEnd;
  /** Whether the span names a parent id no span of the trace has (semantics.md §2: an orphan). */
  final boolean[] orphan;
  /** How many spans are orphans. */
  final int orphans;

  private SpanTree(TraceSpans spans, ScratchArrays arrays) {
    int n = spans.count;
    parent = arrays.unclearedInts(n);
    inTree = arrays.unclearedBooleans(n);
    // Span ids hashed into a table of positions, rather than boxed into a map: the first span
    // of an id takes its slot.
    long[] ids = arrays.unclearedLongs(n);
    // A scratch array may be longer than asked for: the mask, not its length, sizes the table.
    int mask = Integer.highestOneBit(Math.max(n, 1) * 2 - 1) * 2 - 1;
    int[] slots = arrays.ints(mask + 1);
    for (int i = 0; i < n; i++) {
      ids[i] = spans.span[i].spanId();
      inTree[i] = positionOfId(slots, mask, ids, ids[i], i) == i;
    }
    int orphanCount = 0;
    orphan = arrays.unclearedBooleans(n);
    for (int i = 0; i < n; i++) {
      parent[i] = -1;
      orphan[i] = false;
      long parentId = spans.span[i].parentSpanId();
      if (inTree[i] && parentId != 0) {
        int p = positionOfId(slots, mask, ids, parentId, -1);
        if (p >= 0 && p != i) {
          parent[i] = p;
        } else if (p < 0) {
          orphan[i] = true;
          orphanCount++;
        }
      }
    }
    orphans = orphanCount;
    breakCycles(n, arrays);
    childStart = arrays.ints(n + 1);
    childrenByStart = arrays.unclearedInts(n);
    childrenByEnd = arrays.unclearedInts(n);
    int[] fill = arrays.unclearedInts(n);
    Groups.countStarts(parent, n, n, childStart);
    Groups.placeMembers(parent, n, n, childStart, spans.byStart, childrenByStart, fill);
    Groups.placeMembers(parent, n, n, childStart, spans.byEnd, childrenByEnd, fill);
  }

  static SpanTree of(TraceSpans spans, ScratchArrays arrays) {
    return new SpanTree(spans, arrays);
  }

  /** Whether span i is a root of the tree. */
  boolean isRoot(int i) {
    return inTree[i] && parent[i] < 0;
  }

  /**
   * The position of the first span with {@code id} in a table of positions + 1 (0: empty slot)
   * of {@code mask + 1} slots, a power of two at least twice the span count so it stays at most
   * half full; linear probing. When there is none, {@code absent}, also placed in the table
   * unless negative.
   */
  private static int positionOfId(int[] slots, int mask, long[] ids, long id, int absent) {
    // Span ids are random, but not every producer's: a multiplicative hash spreads any bits.
    for (int slot = (int) ((id * 0x9E3779B97F4A7C15L) >>> 32) & mask; ;
        slot = (slot + 1) & mask) {
      int position = slots[slot] - 1;
      if (position < 0) {
        if (absent >= 0) {
          slots[slot] = absent + 1;
        }
        return absent;
      }
      if (ids[position] == id) {
        return position;
      }
    }
  }

  /** Spans on a parent cycle become roots (semantics.md §2, critical path). */
  private void breakCycles(int n, ScratchArrays arrays) {
    int[] mark = arrays.ints(n); // 0 new, 1 on the current path, 2 done
    int[] path = arrays.unclearedInts(n);
    for (int i = 0; i < n; i++) {
      int length = 0;
      int at = i;
      while (at >= 0 && mark[at] == 0) {
        mark[at] = 1;
        path[length++] = at;
        at = parent[at];
      }
      if (at >= 0 && mark[at] == 1) {
        // The walk met its own path: 'at' and everything after it on the path form a cycle.
        int k = length - 1;
        while (path[k] != at) {
          k--;
        }
        for (int j = k; j < length; j++) {
          parent[path[j]] = -1;
        }
      }
      for (int j = 0; j < length; j++) {
        mark[path[j]] = 2;
      }
    }
  }
}
