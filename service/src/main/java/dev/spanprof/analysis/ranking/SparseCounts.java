package dev.spanprof.analysis.ranking;

import dev.spanprof.analysis.internal.CountsIndex;
import java.util.Arrays;

/**
 * Values counted by HdrHistogram's counts index ({@link CountsIndex}), keeping only the indexes
 * that occur: an operation's durations in one ranking bucket, so that the row's quantiles cover
 * the same traces as its count and mean (semantics.md §4) and merge exactly, as HdrHistogram
 * counts do. A busy operation's durations take a few dozen indexes (2 significant digits span a
 * factor of 2 in 128), where a dense HdrHistogram over its range would take thousands.
 *
 * <p>Open addressing over the indexes, half full at most.
 */
final class SparseCounts {

  private static final int EMPTY = -1;

  private int[] indexes = empty(8);
  private long[] counts = new long[8];
  private int size;

  void add(int index, long count) {
    int mask = indexes.length - 1;
    int slot = (index * 0x9E3779B9) >>> 16 & mask;
    while (indexes[slot] != EMPTY && indexes[slot] != index) {
      slot = (slot + 1) & mask;
    }
    if (indexes[slot] == index) {
      counts[slot] += count;
      return;
    }
    indexes[slot] = index;
    counts[slot] = count;
    if (++size * 2 > indexes.length) {
      grow();
    }
  }

  /** The indexes that occur, in no order, and their counts at the same positions. */
  int[] indexes() {
    int[] occurring = new int[size];
    int k = 0;
    for (int index : indexes) {
      if (index != EMPTY) {
        occurring[k++] = index;
      }
    }
    return occurring;
  }

  long[] counts() {
    long[] occurring = new long[size];
    int k = 0;
    for (int slot = 0; slot < indexes.length; slot++) {
      if (indexes[slot] != EMPTY) {
        occurring[k++] = counts[slot];
      }
    }
    return occurring;
  }

  void addTo(SparseCounts target) {
    for (int slot = 0; slot < indexes.length; slot++) {
      if (indexes[slot] != EMPTY) {
        target.add(indexes[slot], counts[slot]);
      }
    }
  }

  /**
   * The value at {@code percentile} (0 to 100) as HdrHistogram 2.2's {@code getValueAtPercentile}
   * answers it (the highest value equivalent to the one reached; the lowest for 0), but never
   * above {@code maxNanos}, the largest value counted: the top of its 1 % bucket may lie above
   * it. 0 when nothing was counted.
   */
  long valueAtPercentile(double percentile, CountsIndex layout, long maxNanos) {
    if (size == 0) {
      return 0;
    }
    long[] packed = new long[size];
    long total = 0;
    int k = 0;
    for (int slot = 0; slot < indexes.length; slot++) {
      if (indexes[slot] != EMPTY) {
        packed[k++] = (long) indexes[slot] << 32 | slot;
        total += counts[slot];
      }
    }
    Arrays.sort(packed);
    double requested = Math.min(Math.max(Math.nextDown(percentile), 0), 100);
    long wanted = Math.max(1, (long) Math.ceil(requested / 100 * total));
    long seen = 0;
    for (long entry : packed) {
      seen += counts[(int) entry];
      if (seen >= wanted) {
        int index = (int) (entry >>> 32);
        long value = percentile == 0 ? layout.lowestValueAt(index)
            : layout.lowestValueAt(index + 1) - 1;
        return Math.min(value, maxNanos);
      }
    }
    return maxNanos;
  }

  private void grow() {
    int[] oldIndexes = indexes;
    long[] oldCounts = counts;
    indexes = empty(oldIndexes.length * 2);
    counts = new long[oldIndexes.length * 2];
    size = 0;
    for (int slot = 0; slot < oldIndexes.length; slot++) {
      if (oldIndexes[slot] != EMPTY) {
        add(oldIndexes[slot], oldCounts[slot]);
      }
    }
  }

  private static int[] empty(int length) {
    int[] array = new int[length];
    Arrays.fill(array, EMPTY);
    return array;
  }
}
