package dev.spanprof.analysis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;
import java.util.function.ObjIntConsumer;
import java.util.function.ToIntFunction;

/**
 * Zeroed primitive arrays for one thread's analyses, reused from trace to trace: an analysis
 * takes some forty arrays sized by its span count, which were a third of what the analysis
 * stage allocated per span. Every analysis takes its arrays in the same order, so the k-th array
 * of a type is the k-th array of the previous analysis, grown when too short.
 *
 * <p>An array may be longer than asked for: callers index only the length they asked for.
 * Arrays longer than {@link #MAX_REUSED_LENGTH} are never kept, so what a thread holds is
 * bounded (about 1.2 MB for the fifty arrays an analysis takes) whatever the largest trace.
 */
final class ScratchArrays {

  static final int MAX_REUSED_LENGTH = 4096;

  private final Pool<long[]> longs =
      new Pool<>(long[]::new, array -> array.length, (array, length) -> Arrays.fill(array, 0, length, 0L));
  private final Pool<int[]> ints =
      new Pool<>(int[]::new, array -> array.length, (array, length) -> Arrays.fill(array, 0, length, 0));
  private final Pool<double[]> doubles =
      new Pool<>(double[]::new, array -> array.length, (array, length) -> Arrays.fill(array, 0, length, 0.0));
  private final Pool<boolean[]> booleans =
      new Pool<>(boolean[]::new, array -> array.length, (array, length) -> Arrays.fill(array, 0, length, false));

  /** Makes every array available again; what was taken before must no longer be used. */
  void reset() {
    longs.next = 0;
    ints.next = 0;
    doubles.next = 0;
    booleans.next = 0;
  }

  long[] longs(int length) {
    return longs.take(length);
  }

  int[] ints(int length) {
    return ints.take(length);
  }

  double[] doubles(int length) {
    return doubles.take(length);
  }

  boolean[] booleans(int length) {
    return booleans.take(length);
  }

  /** The arrays of one type, in the order they were taken. */
  private static final class Pool<A> {
    private final IntFunction<A> make;
    private final ToIntFunction<A> length;
    private final ObjIntConsumer<A> clear;
    private final List<A> arrays = new ArrayList<>();
    int next;

    Pool(IntFunction<A> make, ToIntFunction<A> length, ObjIntConsumer<A> clear) {
      this.make = make;
      this.length = length;
      this.clear = clear;
    }

    A take(int wanted) {
      if (wanted > MAX_REUSED_LENGTH) {
        return make.apply(wanted);
      }
      A array = next < arrays.size() ? arrays.get(next) : null;
      if (array == null || length.applyAsInt(array) < wanted) {
        array = make.apply(wanted);
        if (next < arrays.size()) {
          arrays.set(next, array);
        } else {
          arrays.add(array);
        }
      } else {
        clear.accept(array, wanted);
      }
      next++;
      return array;
    }
  }
}
