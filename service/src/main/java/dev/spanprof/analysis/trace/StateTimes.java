package dev.spanprof.analysis.trace;

import dev.spanprof.analysis.internal.IndexSort;
import dev.spanprof.analysis.internal.ScratchArrays;
import java.util.Arrays;
import java.util.BitSet;

/**
 * Phase 4 of the per-trace analysis, semantics.md §2 "Resource timeline and states": the
 * inclusive and exclusive time of each state, from one sweep over all resources' state runs.
 *
 * @param inclusiveNs per state id, the length of the union of its runs over all resources
 * @param exclusiveNs per state id, how long it was the dominant state among those present
 */
record StateTimes(long[] inclusiveNs, long[] exclusiveNs) {

  static StateTimes of(TraceSpans spans, Segments stateRuns, ScratchArrays arrays) {
    int stateCount = spans.states.size();
    int m = stateRuns.size;
    int[] runsByStart = arrays.unclearedInts(m);
    int[] runsByEnd = arrays.unclearedInts(m);
    for (int k = 0; k < m; k++) {
      runsByStart[k] = k;
      runsByEnd[k] = k;
    }
    IndexSort.byKey(runsByStart, m, stateRuns.from);
    IndexSort.byKey(runsByEnd, m, stateRuns.to);
    return new StateTimes(inclusive(stateCount, stateRuns, runsByStart, arrays),
        exclusive(spans, stateRuns, runsByStart, runsByEnd, arrays));
  }

  /** Runs arrive by start, so each state's union grows at its right end. */
  private static long[] inclusive(int stateCount, Segments runs, int[] runsByStart,
      ScratchArrays arrays) {
    long[] inclusive = arrays.longs(stateCount);
    long[] unionFrom = arrays.unclearedLongs(stateCount);
    long[] unionTo = arrays.unclearedLongs(stateCount);
    Arrays.fill(unionTo, 0, stateCount, Long.MIN_VALUE);
    for (int k = 0; k < runs.size; k++) {
      int run = runsByStart[k];
      int s = runs.owner[run];
      long from = runs.from[run];
      long to = runs.to[run];
      if (from > unionTo[s]) {
        if (unionTo[s] != Long.MIN_VALUE) {
          inclusive[s] += unionTo[s] - unionFrom[s];
        }
        unionFrom[s] = from;
        unionTo[s] = to;
      } else {
        unionTo[s] = Math.max(unionTo[s], to);
      }
    }
    for (int s = 0; s < stateCount; s++) {
      if (unionTo[s] != Long.MIN_VALUE) {
        inclusive[s] += unionTo[s] - unionFrom[s];
      }
    }
    return inclusive;
  }

  /** A sweep over the runs' boundaries keeping the states present, dominant first. */
  private static long[] exclusive(TraceSpans spans, Segments runs, int[] runsByStart,
      int[] runsByEnd, ScratchArrays arrays) {
    int stateCount = spans.states.size();
    int m = runs.size;
    long[] exclusive = arrays.longs(stateCount);
    int[] present = arrays.ints(stateCount);
    // The ranks of the states present: the lowest set bit is the dominant state.
    BitSet presentRanks = new BitSet(stateCount);
    int nextStart = 0;
    int nextEnd = 0;
    long previous = 0;
    while (nextEnd < m) {
      long t = nextStart < m
          ? Math.min(runs.from[runsByStart[nextStart]], runs.to[runsByEnd[nextEnd]])
          : runs.to[runsByEnd[nextEnd]];
      if (t > previous && !presentRanks.isEmpty()) {
        exclusive[spans.stateByRank[presentRanks.nextSetBit(0)]] += t - previous;
      }
      while (nextEnd < m && runs.to[runsByEnd[nextEnd]] == t) {
        int s = runs.owner[runsByEnd[nextEnd++]];
        if (--present[s] == 0) {
          presentRanks.clear(spans.stateRank[s]);
        }
      }
      while (nextStart < m && runs.from[runsByStart[nextStart]] == t) {
        int s = runs.owner[runsByStart[nextStart++]];
        if (present[s]++ == 0) {
          presentRanks.set(spans.stateRank[s]);
        }
      }
      previous = t;
    }
    return exclusive;
  }
}
