package dev.spanprof.analysis.distribution;

import java.util.Arrays;

/**
 * Counts by index where few indexes hold one: those indexes in ascending order, and their
 * counts. A young window slice counts its values here ({@link Distribution}): 6 bytes per index
 * that holds a count, and a read is a scan of them, where HdrHistogram's packed array walks its
 * tree for each count it gives (about 250 ns each, {@code SeriesSnapshotBenchmark}).
 *
 * <p>A count goes up to 65 535; the slice moves to dense counts long before. Not thread-safe:
 * its series' lock guards it.
 */
final class SortedCounts {

  private static final int[] NO_INDEXES = new int[0];
  private static final char[] NO_COUNTS = new char[0];

  private int[] indexes = NO_INDEXES;
  private char[] counts = NO_COUNTS;
  private int size;

  /**
   * Adds one to the count at {@code index}. A plain binary search: among many series the counts
   * are in memory, where a predicted branch fetches the next step's index ahead; a branch-free
   * search was faster only in cache ({@code SortedCountsBenchmark}).
   */
  void increment(int index) {
    int at = Arrays.binarySearch(indexes, 0, size, index);
    if (at < 0) {
      insert(-at - 1, index);
    } else if (counts[at] == Character.MAX_VALUE) {
      throw new IllegalStateException("would overflow the count at index " + index);
    } else {
      counts[at]++;
    }
  }

  private void insert(int at, int index) {
    if (size == indexes.length) {
      int capacity = Math.max(8, size + (size >> 1));
      indexes = Arrays.copyOf(indexes, capacity);
      counts = Arrays.copyOf(counts, capacity);
    }
    System.arraycopy(indexes, at, indexes, at + 1, size - at);
    System.arraycopy(counts, at, counts, at + 1, size - at);
    indexes[at] = index;
    counts[at] = 1;
    size++;
  }

  /** How many indexes hold a count. */
  int size() {
    return size;
  }

  /** The {@code i}-th lowest index that holds a count. */
  int indexAt(int i) {
    return indexes[i];
  }

  /** The count at {@link #indexAt}{@code (i)}. */
  int countAt(int i) {
    return counts[i];
  }

  /** Empties it, and lets go of its arrays: the next slice need not be as busy as this one. */
  void clear() {
    indexes = NO_INDEXES;
    counts = NO_COUNTS;
    size = 0;
  }

  /** About the bytes it takes: this object and its two arrays. */
  long footprintBytes() {
    return 24 + (16 + 4L * indexes.length) + (16 + 2L * counts.length);
  }
}
