package dev.spanprof.analysis.distribution;

import dev.spanprof.analysis.internal.CountsIndex;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Arrays;
import org.HdrHistogram.AbstractHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.IntCountsHistogram;

/**
 * One set of a {@link Distribution}'s views (raw, or corrected): the current slice, the sum of the
 * completed ones and the window's completed slices, the last two encoded. Not thread-safe: the
 * series' lock guards it.
 */
final class SeriesViews {

  /** Each advancing thread's scratch space for encoding a slice or the sum. */
  private static final ThreadLocal<ByteBuffer> ENCODING_BUFFER =
      ThreadLocal.withInitial(() -> ByteBuffer.allocate(0));
  private static final int[] NO_COUNTS = new int[0];
  private static final int[] NO_INDEXES = new int[0];
  /**
   * Each advancing thread's dense histogram per number of significant digits, cleared before
   * each use: a completing slice is gathered there to be added to the sum and encoded.
   */
  private static final ThreadLocal<IntCountsHistogram[]> DENSE_SLICES =
      ThreadLocal.withInitial(() -> new IntCountsHistogram[CountsIndex.MAX_SIGNIFICANT_DIGITS + 1]);
  /**
   * Each advancing thread's dense histogram per number of significant digits for the sum of
   * completed slices, cleared before each use; long counts, since the sum grows for as long
   * as the series lives.
   */
  private static final ThreadLocal<Histogram[]> DENSE_SUMS =
      ThreadLocal.withInitial(() -> new Histogram[CountsIndex.MAX_SIGNIFICANT_DIGITS + 1]);

  /**
   * A slice without values, encoded, per number of significant digits: what an idle series'
   * window keeps, one array for all of them (the encoding's readers only read it).
   */
  private static final byte[][] EMPTY_SLICES = new byte[CountsIndex.MAX_SIGNIFICANT_DIGITS + 1][];

  static {
    for (int digits = 0; digits < EMPTY_SLICES.length; digits++) {
      EMPTY_SLICES[digits] = encode(new IntCountsHistogram(digits));
    }
  }

  private final int slices;
  private final int significantDigits;
  private final CountsIndex countsIndex;
  /**
   * The young slice's values as their indexes by {@link #countsIndex}, in the order they came:
   * a record is a store at the end. Counting each index once, in sorted indexes, was a search
   * whose steps are mostly cache misses where the series are many ({@code
   * YoungSliceBenchmark}); every reader adds the values up into a histogram, where their order
   * does not matter. Let go of when they move to {@link #counts} and when the slice completes.
   */
  private int[] youngIndexes = NO_INDEXES;
  /** How many of {@link #youngIndexes} hold a value. */
  private int youngValues;
  /**
   * The busy slice's counts by {@link #countsIndex}, grown to its highest value; null while the
   * slice is young. A plain array, not a dense HdrHistogram: a record then reads this object
   * and the count, not also the histogram's dozens of fields on lines of their own (the series
   * are many, and a record finds few of their lines in the cache).
   */
  private int[] counts;
  /**
   * Every completed slice, added up, encoded; null before the first. With the current slice,
   * the cumulative view. Encoded, not a live packed histogram: a fifth of the bytes, read only
   * at a window advance and by a reader.
   */
  private byte[] completed;
  /**
   * The window's completed slices, oldest first, encoded. With the current slice, the window
   * view: added up when read, rather than kept summed in a live histogram of their own.
   */
  private final ArrayDeque<byte[]> completedSlices = new ArrayDeque<>();

  SeriesViews(int significantDigits, int slices) {
    this.slices = slices;
    this.significantDigits = significantDigits;
    this.countsIndex = CountsIndex.forDigits(significantDigits);
  }

  int significantDigits() {
    return significantDigits;
  }

  void record(long value, long expectedIntervalNanos) {
    count(countsIndex.of(value));
    // The back-fill of AbstractHistogram.recordValueWithExpectedInterval.
    for (long missing = value - expectedIntervalNanos;
        expectedIntervalNanos > 0 && missing >= expectedIntervalNanos;
        missing -= expectedIntervalNanos) {
      count(countsIndex.of(missing));
    }
  }

  private void count(int index) {
    if (counts != null) {
      countDense(index);
      return;
    }
    if (youngValues == youngIndexes.length) {
      youngIndexes = Arrays.copyOf(youngIndexes,
          Math.min(Distribution.DENSE_AFTER_VALUES, Math.max(8, youngValues + (youngValues >> 1))));
    }
    youngIndexes[youngValues++] = index;
    if (youngValues == Distribution.DENSE_AFTER_VALUES) {
      counts = NO_COUNTS;
      for (int i = 0; i < youngValues; i++) {
        countDense(youngIndexes[i]);
      }
      clearYoung();
    }
  }

  private void clearYoung() {
    youngIndexes = NO_INDEXES;
    youngValues = 0;
  }

  /** Adds one to the dense count at {@code index}, growing the counts to cover it. */
  private void countDense(int index) {
    if (index >= counts.length) {
      counts = Arrays.copyOf(counts, countsIndex.lengthFor(index));
    }
    if (counts[index] == Integer.MAX_VALUE) {
      // An int count would wrap: fail as HdrHistogram's IntCountsHistogram does.
      throw new IllegalStateException("would overflow integer count");
    }
    counts[index]++;
  }

  /** Adds the current slice to {@code target}: its young values and its dense counts. */
  private void addCurrentTo(AbstractHistogram target) {
    for (int i = 0; i < youngValues; i++) {
      target.recordValue(countsIndex.lowestValueAt(youngIndexes[i]));
    }
    if (counts != null) {
      for (int index = 0; index < counts.length; index++) {
        if (counts[index] != 0) {
          target.recordValueWithCount(countsIndex.lowestValueAt(index), counts[index]);
        }
      }
    }
  }

  /**
   * Completes the current slice: adds it to the sum and keeps it encoded in the window.
   *
   * @return the sum of every completed slice, the thread's scratch histogram (valid until its
   *     next advance); null when the slice was empty, which leaves the sum as it was
   */
  AbstractHistogram advance() {
    AbstractHistogram sum = null;
    if (youngValues == 0 && counts == null) {
      completedSlices.addLast(EMPTY_SLICES[significantDigits]);
    } else {
      AbstractHistogram slice = gathered();
      sum = emptySum();
      if (completed != null) {
        EncodedCounts.addTo(completed, countsIndex, sum);
      }
      sum.add(slice);
      completed = encode(sum);
      completedSlices.addLast(encode(slice));
      clearYoung();
      counts = null;
    }
    while (completedSlices.size() > slices - 1) {
      completedSlices.removeFirst();
    }
    return sum;
  }

  /**
   * The current slice, young values and dense counts, gathered in the thread's dense histogram:
   * adding and encoding read a histogram bucket by bucket.
   */
  private AbstractHistogram gathered() {
    IntCountsHistogram[] dense = DENSE_SLICES.get();
    if (dense[significantDigits] == null) {
      dense[significantDigits] = new IntCountsHistogram(significantDigits);
    }
    // Cleared before, not after: a series whose advance failed half way leaves nothing in it.
    dense[significantDigits].reset();
    addCurrentTo(dense[significantDigits]);
    return dense[significantDigits];
  }

  /** The thread's dense histogram for the sum of completed slices, emptied. */
  private Histogram emptySum() {
    Histogram[] sums = DENSE_SUMS.get();
    if (sums[significantDigits] == null) {
      sums[significantDigits] = new Histogram(significantDigits);
    }
    sums[significantDigits].reset();
    return sums[significantDigits];
  }

  /** The cumulative view, in the thread's dense histogram for sums (valid until its next use). */
  AbstractHistogram cumulative() {
    Histogram cumulative = emptySum();
    if (completed != null) {
      EncodedCounts.addTo(completed, countsIndex, cumulative);
    }
    addCurrentTo(cumulative);
    return cumulative;
  }

  /** Empties both, then adds the cumulative view to one and the window view to the other. */
  void addTo(Histogram cumulative, Histogram window) {
    cumulative.reset();
    window.reset();
    // The current slice gathered once, then copied dense to dense.
    addCurrentTo(window);
    cumulative.add(window);
    if (completed != null) {
      EncodedCounts.addTo(completed, countsIndex, cumulative);
    }
    for (byte[] slice : completedSlices) {
      EncodedCounts.addTo(slice, countsIndex, window);
    }
  }

  long footprintBytes() {
    long bytes = (youngIndexes == NO_INDEXES ? 0 : 16 + 4L * youngIndexes.length)
        + (counts == null ? 0 : 16 + 4L * counts.length)
        + (completed == null ? 0 : completed.length);
    for (byte[] slice : completedSlices) {
      if (slice != EMPTY_SLICES[significantDigits]) {
        bytes += slice.length;
      }
    }
    return bytes;
  }

  /**
   * {@code histogram} in HdrHistogram's V2 encoding, whose run-length counts are already
   * compact (a packed histogram takes about five times the bytes); not the deflated form,
   * whose encoder keeps a worst-case-sized buffer cached in the histogram.
   */
  private static byte[] encode(AbstractHistogram histogram) {
    ByteBuffer buffer = ENCODING_BUFFER.get();
    int needed = histogram.getNeededByteBufferCapacity();
    if (buffer.capacity() < needed) {
      buffer = ByteBuffer.allocate(needed);
      ENCODING_BUFFER.set(buffer);
    }
    buffer.clear();
    int length = histogram.encodeIntoByteBuffer(buffer);
    return Arrays.copyOf(buffer.array(), length);
  }
}
