package dev.spanprof.analysis.distribution;


import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class SortedCountsTest {

  /** Increments at random indexes, repeated and new, read back as a sorted map counts them. */
  @Test
  void increments_readBackInIndexOrder_asAMapCountsThem() {
    Random random = new Random(7);
    SortedCounts counts = new SortedCounts();
    Map<Integer, Integer> expected = new TreeMap<>();
    for (int i = 0; i < 5_000; i++) {
      // Few indexes often, many once: a slice's values bunch around a few durations.
      int index = random.nextBoolean() ? random.nextInt(20) : random.nextInt(100_000);
      counts.increment(index);
      expected.merge(index, 1, Integer::sum);
    }

    Map<Integer, Integer> read = new TreeMap<>();
    int previous = -1;
    for (int i = 0; i < counts.size(); i++) {
      assertThat(counts.indexAt(i)).isGreaterThan(previous);
      previous = counts.indexAt(i);
      read.put(counts.indexAt(i), counts.countAt(i));
    }
    assertThat(read).isEqualTo(expected);
  }

  @Test
  void clear_emptiesAndLetsGoOfItsArrays() {
    SortedCounts counts = new SortedCounts();
    long empty = counts.footprintBytes();
    for (int index = 0; index < 1_000; index++) {
      counts.increment(index);
    }
    assertThat(counts.footprintBytes()).isGreaterThan(empty + 6_000);

    counts.clear();

    assertThat(counts.size()).isZero();
    assertThat(counts.footprintBytes()).isEqualTo(empty);
    counts.increment(3);
    assertThat(counts.size()).isEqualTo(1);
    assertThat(counts.countAt(0)).isEqualTo(1);
  }

  @Test
  void aCountPast65535_isRefused() {
    SortedCounts counts = new SortedCounts();
    for (int i = 0; i < Character.MAX_VALUE; i++) {
      counts.increment(9);
    }
    assertThat(counts.countAt(0)).isEqualTo(Character.MAX_VALUE);

    assertThatThrownBy(() -> counts.increment(9)).isInstanceOf(IllegalStateException.class);
    assertThat(counts.countAt(0)).isEqualTo(Character.MAX_VALUE);
  }
}
