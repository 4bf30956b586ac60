package dev.spanprof.analysis.trace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.analysis.internal.IndexSort;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class IntervalsTest {

  /**
   * <pre>
   *   |===|                [0,4)
   *     |=====|            [2,8)   overlaps the first
   *         |==|           [6,7)   inside the second
   *              |==|      [10,13) apart
   *                 |=|    [13,15) back to back
   * </pre>
   */
  @Test
  void unionLength_overlappingNestedAndAdjacent_countsEachInstantOnce() {
    long[] from = {0, 2, 6, 10, 13};
    long[] to = {4, 8, 7, 13, 15};

    assertThat(Intervals.unionLength(new int[] {0, 1, 2, 3, 4}, 5, from, to)).isEqualTo(8 + 5);
    assertThat(Intervals.unionLength(new int[] {0, 1, 2, 3, 4}, 0, from, to)).isZero();
  }

  @Test
  void indexSort_byKey_sortsStably() {
    long[] keys = {5, 1, 5, 0, 1};
    int[] indices = {0, 1, 2, 3, 4};

    IndexSort.byKey(indices, 5, keys);

    assertThat(indices).containsExactly(3, 1, 4, 0, 2);
  }

  /**
   * Timestamps (keys within a small range) take the packed sort; keys whose range overflows a
   * long take the index sort, short inputs by insertion, long ones by merging. All stable, all
   * right.
   */
  @Test
  void indexSort_matchesAStableReferenceSortAtEveryLength_bothWays() {
    Random random = new Random(7);
    for (boolean wide : new boolean[] {false, true}) {
      for (int length = 0; length <= 100; length++) {
        assertSortsLikeReference(keys(random, length, wide), "wide " + wide + ", length " + length);
      }
    }
  }

  /** Past the packed sort's length the index sort takes over, with the same order. */
  @Test
  void indexSort_longInputOfTimestamps_matchesAStableReferenceSort() {
    assertSortsLikeReference(keys(new Random(13), 5000, false), "length 5000");
  }

  private static void assertSortsLikeReference(long[] keys, String description) {
    int length = keys.length;
    int[] ascending = IntStream.range(0, length).toArray();
    int[] expectedAscending = IntStream.range(0, length).boxed()
        .sorted(Comparator.comparingLong(i -> keys[i])).mapToInt(Integer::intValue).toArray();

    IndexSort.byKey(ascending, length, keys);

    assertThat(ascending).as("ascending, %s", description).containsExactly(expectedAscending);
  }

  /**
   * Keys with ties: timestamps near 1.7e18 ns, or values from both ends of the longs, whose range
   * does not fit in one (as span ids).
   */
  private static long[] keys(Random random, int length, boolean wide) {
    long[] wideValues = {Long.MIN_VALUE, -1, 0, 1, Long.MAX_VALUE};
    return wide
        ? random.ints(length, 0, wideValues.length).mapToLong(i -> wideValues[i]).toArray()
        : random.longs(length, 0, 10).map(offset -> 1_700_000_000_000_000_000L + offset).toArray();
  }

  /**
   * A range inside a longer array, as the critical path's walk sorts each frame's tied children
   * where its parent frame's end: only the range moves, sorted stably, also when it is merged.
   */
  @Test
  void indexSort_sortsOnlyTheRange() {
    Random random = new Random(11);
    for (int length = 0; length <= 60; length++) {
      int from = random.nextInt(10);
      int to = from + length;
      int[] untouched = IntStream.range(0, to + 5).map(i -> 1000 + i).toArray();
      long[] keys = random.longs(to + 5, 0, 10).toArray();
      int[] ascending = untouched.clone();
      for (int i = from; i < to; i++) {
        ascending[i] = i;
      }
      int[] expectedAscending = IntStream.range(from, to).boxed()
          .sorted(Comparator.comparingLong(i -> keys[i])).mapToInt(Integer::intValue).toArray();

      IndexSort.byKey(ascending, from, to, keys);

      assertThat(Arrays.copyOfRange(ascending, from, to)).as("ascending, length %d", length)
          .containsExactly(expectedAscending);
      for (int i = 0; i < untouched.length; i++) {
        if (i < from || i >= to) {
          assertThat(ascending[i]).isEqualTo(untouched[i]);
        }
      }
    }
  }

  /** A range is sorted in place; the indices outside it stay where they were. */
  @Test
  void indexSort_byKeyOnARange_leavesTheRestAlone() {
    Random random = new Random(11);
    long[] keys = random.longs(80, 0, 10).toArray();
    int[] indices = IntStream.range(0, 80).map(i -> 79 - i).toArray();
    int[] expected = indices.clone();
    Integer[] middle = IntStream.of(indices).skip(5).limit(60).boxed().toArray(Integer[]::new);
    java.util.Arrays.sort(middle, Comparator.comparingLong(i -> keys[i]));
    for (int k = 0; k < 60; k++) {
      expected[5 + k] = middle[k];
    }

    IndexSort.byKey(indices, 5, 65, keys);

    assertThat(indices).containsExactly(expected);
  }
}
