package dev.spanprof.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.PackedHistogram;
import org.junit.jupiter.api.Test;

class DistributionExportTest {

  /** The service's default bounds (application.yml), in nanoseconds. */
  private static final long[] BOUNDS_NANOS = {2_000_000, 4_000_000, 6_000_000, 8_000_000,
      10_000_000, 50_000_000, 100_000_000, 200_000_000, 400_000_000, 800_000_000, 1_000_000_000,
      1_400_000_000, 2_000_000_000, 5_000_000_000L, 10_000_000_000L, 15_000_000_000L};

  /**
   * Bounds that start an HdrHistogram bucket of 2 digits, which the defaults do not: a value of
   * the bucket starting at a bound is at or below it.
   */
  private static final long[] ALIGNED_BOUNDS_NANOS = {1 << 20, 3 << 20, 1L << 30, 5L << 30};

  /** Bounds closer than 2 digits tell apart: the first three share one HdrHistogram bucket. */
  private static final long[] CLOSE_BOUNDS_NANOS =
      {10_000_000, 10_000_001, 10_020_000, 20_000_000};

  /**
   * One pass gives what HdrHistogram's count from 0 to each bound gives, differenced: values at a
   * bound, one either side of it, within its HdrHistogram bucket, zeros and values past the last
   * bound.
   */
  @Test
  void bucketCounts_equalCountsFromZeroToEachBoundDifferenced() {
    check(BOUNDS_NANOS);
    check(ALIGNED_BOUNDS_NANOS);
    check(CLOSE_BOUNDS_NANOS);
  }

  private static void check(long[] bounds) {
    Random random = new Random(8);
    for (int round = 0; round < 50; round++) {
      Histogram histogram = round % 2 == 0 ? new Histogram(2) : new PackedHistogram(2);
      for (int i = 0; i < random.nextInt(2_000); i++) {
        long bound = bounds[random.nextInt(bounds.length)];
        long value = switch (random.nextInt(6)) {
          case 0 -> bound;
          case 1 -> bound + 1;
          case 5 -> bound - 1;
          case 2 -> bound + bound / 200; // within 1 %: often the bound's own HdrHistogram bucket
          case 3 -> random.nextInt(3) == 0 ? 0 : 20_000_000_000L + random.nextInt(1_000);
          default -> (long) Math.pow(10, 3 + 8 * random.nextDouble());
        };
        histogram.recordValueWithCount(value, 1 + random.nextInt(3));
      }

      long[] expected = new long[bounds.length + 1];
      long below = 0;
      for (int b = 0; b < bounds.length; b++) {
        long atOrBelow = histogram.getCountBetweenValues(0, bounds[b]);
        expected[b] = atOrBelow - below;
        below = atOrBelow;
      }
      expected[bounds.length] = histogram.getTotalCount() - below;

      assertThat(DistributionExport.bucketCounts(histogram, bounds))
          .as("round %d", round).containsExactly(expected);
    }
  }

  @Test
  void bucketCounts_emptyHistogram_allZero() {
    assertThat(DistributionExport.bucketCounts(new Histogram(2), BOUNDS_NANOS))
        .hasSize(BOUNDS_NANOS.length + 1).containsOnly(0L);
  }
}
