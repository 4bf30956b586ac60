package dev.spanprof.analysis.internal;

import java.util.Arrays;

/**
 * Primitive arrays for one thread's analyses, zeroed or not, reused from trace to trace: an
 * analysis takes some forty arrays sized by its span count, which were a third of what the
 * analysis stage allocated per span. Every analysis takes its arrays in the same order, so the
 * k-th array of a type is the k-th array of the previous analysis, grown when too short.
 *
 * <p>An array may be longer than asked for: callers index only the length they asked for.
 * Arrays longer than {@link #MAX_REUSED_LENGTH} are never kept, so what a thread holds is
 * bounded (about 1.2 MB for the fifty arrays an analysis takes) whatever the largest trace.
 */
public final class ScratchArrays {

  public static final int MAX_REUSED_LENGTH = 4096;

  private final Slots longs = new Slots();
  private final Slots ints = new Slots();
  private final Slots doubles = new Slots();
  private final Slots booleans = new Slots();

  /** Makes every array available again; what was taken before must no longer be used. */
  public void reset() {
    longs.next = 0;
    ints.next = 0;
    doubles.next = 0;
    booleans.next = 0;
  }

  // One method per type, each making and clearing its own arrays: a pool generic over the types
  // would call its functions (make, measure, clear) at the same sites for every type,
  // megamorphic; that was 6 % of the analysis stage.

  public long[] longs(int length) {
    long[] array = unclearedLongs(length);
    Arrays.fill(array, 0, length, 0L);
    return array;
  }

  public int[] ints(int length) {
    int[] array = unclearedInts(length);
    Arrays.fill(array, 0, length, 0);
    return array;
  }

  public double[] doubles(int length) {
    double[] array = unclearedDoubles(length);
    Arrays.fill(array, 0, length, 0.0);
    return array;
  }

  public boolean[] booleans(int length) {
    boolean[] array = unclearedBooleans(length);
    Arrays.fill(array, 0, length, false);
    return array;
  }

  // The uncleared arrays hold what the previous analysis left in them: for callers that write
  // every element before they read it, which most of an analysis' arrays are. Clearing them was
  // 3 % of the analysis stage.

  public long[] unclearedLongs(int length) {
    long[] kept = (long[]) longs.take();
    return kept != null && kept.length >= length ? kept : longs.keep(new long[length], length);
  }

  public int[] unclearedInts(int length) {
    int[] kept = (int[]) ints.take();
    return kept != null && kept.length >= length ? kept : ints.keep(new int[length], length);
  }

  public double[] unclearedDoubles(int length) {
    double[] kept = (double[]) doubles.take();
    return kept != null && kept.length >= length ? kept : doubles.keep(new double[length], length);
  }

  public boolean[] unclearedBooleans(int length) {
    boolean[] kept = (boolean[]) booleans.take();
    return kept != null && kept.length >= length
        ? kept : booleans.keep(new boolean[length], length);
  }

  /** The arrays of one type, in the order an analysis takes them. */
  private static final class Slots {
    private Object[] arrays = new Object[16];
    int next;

    /** The array the previous analysis took at this position, or null; moves to the next. */
    Object take() {
      if (next == arrays.length) {
        arrays = Arrays.copyOf(arrays, next * 2);
      }
      return arrays[next++];
    }

    /**
     * Keeps {@code fresh}, of {@code length}, at the position just taken in place of the shorter
     * array there, unless it is longer than {@link #MAX_REUSED_LENGTH}; returns it.
     */
    <A> A keep(A fresh, int length) {
      if (length <= MAX_REUSED_LENGTH) {
        arrays[next - 1] = fresh;
      }
      return fresh;
    }
  }
}
