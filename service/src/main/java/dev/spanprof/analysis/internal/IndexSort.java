package dev.spanprof.analysis.internal;

import java.util.Arrays;

/**
 * Sorts int indices by a {@code long} key per index without boxing: stable, O(n log n).
 *
 * <p>Keys are compared directly rather than through a comparator: the analysis sorts a few
 * times per span, and a comparator call per comparison (megamorphic, since every caller passes
 * its own) was most of the sorting's cost. Orders on several keys sort by the first key, then
 * the runs of equal first keys by the others.
 *
 * <p>The usual input, a trace's timestamps, spans far less than the range of a long. Then each
 * key less the smallest is packed with its position into one long and the longs are sorted as
 * they are: no index is followed per comparison, and the position keeps equal keys in their order.
 * Up to {@link #COUNTED_MAX_LENGTH} longs (a usual trace), each is placed by counting the longs
 * below it instead. Other keys (span ids, long inputs) take the index sort.
 */
public final class IndexSort {

  /** Up to this many indices the insertion sort is as quick, without the packing pass. */
  private static final int PACKED_MIN_LENGTH = 12;
  /** Bits of a packed long that hold the position; the rest hold the key's offset. */
  private static final int POSITION_BITS = 12;
  private static final int PACKED_MAX_LENGTH = 1 << POSITION_BITS;
  /** Offsets below this fit above the position (2^51 ns: 26 days). */
  private static final long PACKED_MAX_RANGE = 1L << (Long.SIZE - 1 - POSITION_BITS);
  /**
   * Up to this many packed longs, each one's place is counted rather than found by comparison
   * sorting: for a trace's 20 timestamps, in no order, about half the time of
   * {@code Arrays.sort}, whose insertion sort mispredicts about one branch per comparison.
   */
  private static final int COUNTED_MAX_LENGTH = 64;
  /** Per thread, the packed longs and the indices they stand for: 48 KB at most. */
  private static final ThreadLocal<Packed> PACKED = ThreadLocal.withInitial(Packed::new);

  /**
   * Runs of up to this many indices are insertion sorted (cheaper than merging at this size, and
   * no buffer); longer inputs merge such runs.
   */
  private static final int RUN = 24;

  private IndexSort() {}

  /** Sorts {@code indices[0, length)} so that {@code keys[indices[i]]} ascends; stable. */
  public static void byKey(int[] indices, int length, long[] keys) {
    sort(indices, 0, length, keys);
  }

  /** Sorts {@code indices[from, to)} so that {@code keys[indices[i]]} ascends; stable. */
  public static void byKey(int[] indices, int from, int to, long[] keys) {
    sort(indices, from, to, keys);
  }

  private static void sort(int[] indices, int from, int to, long[] keys) {
    if (to - from > PACKED_MIN_LENGTH && sortPacked(indices, from, to, keys)) {
      return;
    }
    for (int low = from; low < to; low += RUN) {
      insertionSort(indices, low, Math.min(low + RUN, to), keys);
    }
    if (to - from <= RUN) {
      return;
    }
    // Merges runs of doubling width, back and forth between the indices and a buffer.
    int[] source = indices;
    int[] target = new int[indices.length];
    for (int width = RUN; width < to - from; width *= 2) {
      for (int low = from; low < to; low += 2 * width) {
        int middle = Math.min(low + width, to);
        int high = Math.min(low + 2 * width, to);
        merge(source, low, middle, high, target, keys);
      }
      int[] swap = source;
      source = target;
      target = swap;
    }
    if (source != indices) {
      System.arraycopy(source, from, indices, from, to - from);
    }
  }

  /** Sorts as packed longs when the keys' range allows it; false, untouched, when not. */
  private static boolean sortPacked(int[] indices, int from, int to, long[] keys) {
    int length = to - from;
    if (length > PACKED_MAX_LENGTH) {
      return false;
    }
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (int i = from; i < to; i++) {
      long key = keys[indices[i]];
      min = Math.min(min, key);
      max = Math.max(max, key);
    }
    long range = max - min; // negative when the difference overflows
    if (range < 0 || range >= PACKED_MAX_RANGE) {
      return false;
    }
    Packed scratch = PACKED.get();
    long[] packed = scratch.packed;
    int[] original = scratch.indices;
    for (int position = 0; position < length; position++) {
      int index = indices[from + position];
      packed[position] = (keys[index] - min) << POSITION_BITS | position;
      original[position] = index;
    }
    if (length <= COUNTED_MAX_LENGTH) {
      placeByCount(packed, original, length, indices, from);
      return true;
    }
    Arrays.sort(packed, 0, length);
    for (int k = 0; k < length; k++) {
      indices[from + k] = original[(int) packed[k] & (PACKED_MAX_LENGTH - 1)];
    }
    return true;
  }

  /**
   * Puts each of {@code original[0, length)} at {@code from} plus the number of packed longs
   * below its own. The longs are distinct (each holds its position) and non-negative, so the
   * place is a sum of sign bits: no branch to mispredict, n² additions for n log n comparisons.
   */
  private static void placeByCount(long[] packed, int[] original, int length, int[] indices,
      int from) {
    for (int position = 0; position < length; position++) {
      long own = packed[position];
      long below = 0;
      for (int other = 0; other < length; other++) {
        below += (packed[other] - own) >>> 63;
      }
      indices[from + (int) below] = original[position];
    }
  }

  private static final class Packed {
    final long[] packed = new long[PACKED_MAX_LENGTH];
    final int[] indices = new int[PACKED_MAX_LENGTH];
  }

  private static void insertionSort(int[] indices, int from, int to, long[] keys) {
    for (int i = from + 1; i < to; i++) {
      int moving = indices[i];
      int j = i - 1;
      while (j >= from && keys[moving] < keys[indices[j]]) {
        indices[j + 1] = indices[j];
        j--;
      }
      indices[j + 1] = moving;
    }
  }

  /** Merges sorted {@code source[low, middle)} and {@code source[middle, high)} into target. */
  private static void merge(int[] source, int low, int middle, int high, int[] target,
      long[] keys) {
    int left = low;
    int right = middle;
    int out = low;
    while (left < middle && right < high) {
      // Ties take the left run's first: stable.
      target[out++] = keys[source[right]] < keys[source[left]]
          ? source[right++] : source[left++];
    }
    System.arraycopy(source, left, target, out, middle - left);
    System.arraycopy(source, right, target, out + middle - left, high - right);
  }
}
