package dev.spanprof.analysis.internal;


import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The layout agrees with HdrHistogram's own rounding, for every supported number of digits. */
class CountsIndexTest {

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 2, 3, 4, 5})
  void lowestValueAt_ofAValue_isHdrHistogramsLowestEquivalentValue(int digits) {
    CountsIndex index = CountsIndex.forDigits(digits);
    Histogram reference = new Histogram(digits);
    Random random = new Random(digits);
    int previousIndex = -1;
    long previousValue = -1;
    for (int i = 0; i < 20_000; i++) {
      // Every small value in order, then values spread over the whole positive range.
      long value = i < 5_000 ? i : (long) Math.pow(2, 62 * random.nextDouble());
      int at = index.of(value);

      assertThat(index.lowestValueAt(at)).as("value %d", value)
          .isEqualTo(reference.lowestEquivalentValue(value));
      assertThat(index.lengthFor(at)).isGreaterThan(at);
      if (i < 5_000) {
        assertThat(at).as("index of %d after %d", value, previousValue)
            .isBetween(previousIndex, previousIndex + 1);
        previousIndex = at;
        previousValue = value;
      }
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 2, 3})
  void countsAtLowestValues_makeTheSameHistogramAsTheValues(int digits) {
    CountsIndex index = CountsIndex.forDigits(digits);
    Histogram direct = new Histogram(digits);
    Histogram viaIndex = new Histogram(digits);
    Random random = new Random(7);
    for (int i = 0; i < 10_000; i++) {
      long value = (long) Math.pow(10, 10 * random.nextDouble());
      direct.recordValue(value);
      viaIndex.recordValueWithCount(index.lowestValueAt(index.of(value)), 1);
    }

    assertThat(viaIndex).isEqualTo(direct);
    assertThat(viaIndex.getValueAtPercentile(99)).isEqualTo(direct.getValueAtPercentile(99));
    assertThat(viaIndex.getMaxValue()).isEqualTo(direct.getMaxValue());
    assertThat(viaIndex.getMinNonZeroValue()).isEqualTo(direct.getMinNonZeroValue());
  }
}
