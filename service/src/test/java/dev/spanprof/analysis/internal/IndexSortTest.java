package dev.spanprof.analysis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * IndexSort against a plain stable sort (boxed indices, a comparator by key: {@code Arrays.sort}
 * of objects is stable) on every path it takes: insertion sort, the counted and the sorted
 * packed longs, the merged index sort for keys too far apart to pack, and long inputs.
 */
class IndexSortTest {

  @ParameterizedTest(name = "{0} indices, keys below {1}")
  @CsvSource({
      "0, 10", "1, 10", "12, 5", "13, 5", "64, 1000000000", "65, 1000000000",
      "4096, 3", "4097, 1000000000", "20000, 100000", "300, 9223372036854775807"})
  void byKey_ordersAsAStableSortDoes(int length, long keyBound) {
    Random random = new Random(length * 31L + keyBound);
    for (int round = 0; round < 20; round++) {
      long[] keys = new long[length];
      for (int i = 0; i < length; i++) {
        long key = random.nextLong() % keyBound;
        keys[i] = round % 2 == 0 ? Math.abs(key) : key; // negative keys in odd rounds
      }
      int[] indices = IntStream.range(0, length).toArray();
      shuffle(indices, random);

      int[] expected = stableSort(indices, keys);
      IndexSort.byKey(indices, length, keys);

      assertThat(indices).as("round %s", round).containsExactly(expected);
    }
  }

  @Test
  void byKey_subrange_leavesTheRestAlone() {
    long[] keys = {5, 4, 3, 2, 1, 0, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 7, 7, 7, 7};
    int[] indices = IntStream.range(0, keys.length).toArray();

    IndexSort.byKey(indices, 2, 18, keys);

    assertThat(Arrays.copyOfRange(indices, 0, 2)).containsExactly(0, 1);
    assertThat(Arrays.copyOfRange(indices, 18, 20)).containsExactly(18, 19);
    int[] middle = Arrays.copyOfRange(indices, 2, 18);
    assertThat(middle).containsExactly(stableSort(IntStream.range(2, 18).toArray(), keys));
  }

  private static int[] stableSort(int[] indices, long[] keys) {
    Integer[] boxed = Arrays.stream(indices).boxed().toArray(Integer[]::new);
    Arrays.sort(boxed, Comparator.comparingLong(i -> keys[i]));
    return Arrays.stream(boxed).mapToInt(Integer::intValue).toArray();
  }

  private static void shuffle(int[] values, Random random) {
    for (int i = values.length - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int swap = values[i];
      values[i] = values[j];
      values[j] = swap;
    }
  }
}
