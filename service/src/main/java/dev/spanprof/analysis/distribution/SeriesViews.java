package dev.spanprof.analysis.distribution;

import dev.spanprof.analysis.internal.CountsIndex;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Arrays;
import org.HdrHistogram.AbstractHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.IntCountsHistogram;

/**
 * One set of a {@link Distribution}'s views (raw, or corrected): two open slices (the current and
 * the one before it), the sum of the completed ones and the window's completed slices, the last
 * two encoded. Not thread-safe: the
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
   * The open slice of the newest arrivals (semantics.md §7): what arrives now, and what the
   * window's next slice holds once {@link #previous} completes.
   */
  private OpenSlice current = new OpenSlice();
  /**
   * The open slice before it: traces are analysed a trace timeout after their arrival, so the
   * slice of their arrival stays open that long past its end, and completes at the next advance.
   */
  private OpenSlice previous = new OpenSlice();
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

  /** Records into the current slice, or with {@code earlier} into the one before it. */
  void record(long value, long expectedIntervalNanos, boolean earlier) {
    OpenSlice slice = earlier ? previous : current;
    slice.count(countsIndex.of(value), countsIndex);
    // The back-fill of AbstractHistogram.recordValueWithExpectedInterval.
    for (long missing = value - expectedIntervalNanos;
        expectedIntervalNanos > 0 && missing >= expectedIntervalNanos;
        missing -= expectedIntervalNanos) {
      slice.count(countsIndex.of(missing), countsIndex);
    }
  }

  /**
   * Completes the previous slice, adding it to the sum and keeping it encoded in the window; the
   * current one becomes the previous, and a new one opens. The window is the completed slices and
   * the two open ones.
   *
   * @return the cumulative view, the thread's scratch histogram (valid until its next advance);
   *     null when no value was recorded since the last advance, which leaves it as it was
   */
  AbstractHistogram advance() {
    AbstractHistogram cumulative = null;
    if (previous.isEmpty()) {
      completedSlices.addLast(EMPTY_SLICES[significantDigits]);
    } else {
      AbstractHistogram slice = gathered(previous);
      cumulative = emptySum();
      if (completed != null) {
        EncodedCounts.addTo(completed, countsIndex, cumulative);
      }
      cumulative.add(slice);
      completed = encode(cumulative);
      completedSlices.addLast(encode(slice));
    }
    if (!current.isEmpty()) {
      if (cumulative == null) {
        cumulative = emptySum();
        if (completed != null) {
          EncodedCounts.addTo(completed, countsIndex, cumulative);
        }
      }
      current.addTo(cumulative, countsIndex);
    }
    while (completedSlices.size() > slices - 2) {
      completedSlices.removeFirst();
    }
    OpenSlice emptied = previous;
    emptied.clear();
    previous = current;
    current = emptied;
    return cumulative;
  }

  /**
   * An open slice, young values and dense counts, gathered in the thread's dense histogram:
   * adding and encoding read a histogram bucket by bucket.
   */
  private AbstractHistogram gathered(OpenSlice slice) {
    IntCountsHistogram[] dense = DENSE_SLICES.get();
    if (dense[significantDigits] == null) {
      dense[significantDigits] = new IntCountsHistogram(significantDigits);
    }
    // Cleared before, not after: a series whose advance failed half way leaves nothing in it.
    dense[significantDigits].reset();
    slice.addTo(dense[significantDigits], countsIndex);
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
    previous.addTo(cumulative, countsIndex);
    current.addTo(cumulative, countsIndex);
    return cumulative;
  }

  /** Empties both, then adds the cumulative view to one and the window view to the other. */
  void addTo(Histogram cumulative, Histogram window) {
    cumulative.reset();
    window.reset();
    // The open slices gathered once, then copied dense to dense.
    previous.addTo(window, countsIndex);
    current.addTo(window, countsIndex);
    cumulative.add(window);
    if (completed != null) {
      EncodedCounts.addTo(completed, countsIndex, cumulative);
    }
    for (byte[] slice : completedSlices) {
      EncodedCounts.addTo(slice, countsIndex, window);
    }
  }

  long footprintBytes() {
    long bytes = current.footprintBytes() + previous.footprintBytes()
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

  /**
   * One open slice's values. Young, as their indexes by the series' counts index in the order
   * they came: a record is a store at the end. Counting each index once, in sorted indexes, was a
   * search whose steps are mostly cache misses where the series are many ({@code
   * YoungSliceBenchmark}); every reader adds the values up into a histogram, where their order
   * does not matter. Busy, as dense counts: a plain array, not a dense HdrHistogram, so that a
   * record reads this object and the count, not also the histogram's dozens of fields on lines
   * of their own (the series are many, and a record finds few of their lines in the cache). A
   * slice lets its arrays go when it completes.
   */
  private static final class OpenSlice {
    private int[] youngIndexes = NO_INDEXES;
    /** How many of {@link #youngIndexes} hold a value. */
    private int youngValues;
    /** The dense counts, grown to the highest value; null while the slice is young. */
    private int[] counts;

    void count(int index, CountsIndex countsIndex) {
      if (counts != null) {
        countDense(index, countsIndex);
        return;
      }
      if (youngValues == youngIndexes.length) {
        youngIndexes = Arrays.copyOf(youngIndexes, Math.min(Distribution.DENSE_AFTER_VALUES,
            Math.max(8, youngValues + (youngValues >> 1))));
      }
      youngIndexes[youngValues++] = index;
      if (youngValues == Distribution.DENSE_AFTER_VALUES) {
        counts = NO_COUNTS;
        for (int i = 0; i < youngValues; i++) {
          countDense(youngIndexes[i], countsIndex);
        }
        youngIndexes = NO_INDEXES;
        youngValues = 0;
      }
    }

    /** Adds one to the dense count at {@code index}, growing the counts to cover it. */
    private void countDense(int index, CountsIndex countsIndex) {
      if (index >= counts.length) {
        counts = Arrays.copyOf(counts, countsIndex.lengthFor(index));
      }
      if (counts[index] == Integer.MAX_VALUE) {
        // An int count would wrap: fail as HdrHistogram's IntCountsHistogram does.
        throw new IllegalStateException("would overflow integer count");
      }
      counts[index]++;
    }

    boolean isEmpty() {
      return youngValues == 0 && counts == null;
    }

    /** Adds this slice to {@code target}: its young values and its dense counts. */
    void addTo(AbstractHistogram target, CountsIndex countsIndex) {
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

    void clear() {
      youngIndexes = NO_INDEXES;
      youngValues = 0;
      counts = null;
    }

    long footprintBytes() {
      return (youngIndexes == NO_INDEXES ? 0 : 16 + 4L * youngIndexes.length)
          + (counts == null ? 0 : 16 + 4L * counts.length);
    }
  }
}
