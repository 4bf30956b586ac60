package dev.spanprof.analysis.ranking;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.analysis.internal.CountsIndex;
import java.util.Random;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class SparseCountsTest {

  private static final CountsIndex LAYOUT = CountsIndex.forDigits(2);

  /** Random durations from 1 µs to 10 s, in two halves merged: HdrHistogram's answers. */
  @Test
  void valueAtPercentile_equalsHdrHistogramsClampedToTheMaximum() {
    Random random = new Random(42);
    for (int round = 0; round < 50; round++) {
      SparseCounts first = new SparseCounts();
      SparseCounts second = new SparseCounts();
      Histogram reference = new Histogram(2);
      long max = 0;
      int values = 1 + random.nextInt(2000);
      for (int i = 0; i < values; i++) {
        long value = (long) Math.pow(10, 3 + 7 * random.nextDouble());
        (i % 2 == 0 ? first : second).add(LAYOUT.of(value), 1);
        reference.recordValue(value);
        max = Math.max(max, value);
      }
      SparseCounts merged = new SparseCounts();
      first.addTo(merged);
      second.addTo(merged);

      for (double percentile : new double[] {0, 1, 50, 90, 99, 99.9, 100}) {
        assertThat(merged.valueAtPercentile(percentile, LAYOUT, max))
            .as("p%s of %s values", percentile, values)
            .isEqualTo(Math.min(reference.getValueAtPercentile(percentile), max));
      }
    }
  }

  @Test
  void valueAtPercentile_nothingCounted_zero() {
    assertThat(new SparseCounts().valueAtPercentile(99, LAYOUT, 0)).isZero();
  }
}
