package dev.spanprof.analysis.trace;

/** Interval algebra on half-open intervals [from, to) held in parallel arrays. */
final class Intervals {

  private Intervals() {}

  /**
   * The length of the union of the intervals {@code [from[i], to[i])} for the first
   * {@code count} indices of {@code order}, which must be sorted by {@code from}.
   */
  static long unionLength(int[] order, int count, long[] from, long[] to) {
    long total = 0;
    long coveredTo = Long.MIN_VALUE;
    for (int k = 0; k < count; k++) {
      int i = order[k];
      if (from[i] >= coveredTo) {
        total += to[i] - from[i];
        coveredTo = to[i];
      } else if (to[i] > coveredTo) {
        total += to[i] - coveredTo;
        coveredTo = to[i];
      }
    }
    return total;
  }
}
