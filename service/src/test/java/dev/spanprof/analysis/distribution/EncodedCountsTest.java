package dev.spanprof.analysis.distribution;


import dev.spanprof.analysis.internal.CountsIndex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import org.HdrHistogram.AbstractHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.IntCountsHistogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Counts read from HdrHistogram's V2 encoding are the ones HdrHistogram's own decoder reads. */
class EncodedCountsTest {

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 2, 3})
  void addTo_readsWhatHdrHistogramDecodes(int digits) {
    Random random = new Random(digits);
    for (int round = 0; round < 20; round++) {
      Histogram histogram = new Histogram(digits);
      int values = 1 + random.nextInt(2_000);
      for (int i = 0; i < values; i++) {
        // Spread over up to 18 decades, so that the counts have runs of zeros of every length;
        // some counts past an int and past what one LEB128 group holds.
        long value = (long) Math.pow(10, 18 * random.nextDouble() * random.nextDouble());
        histogram.recordValueWithCount(value, random.nextInt(8) == 0 ? 1L << 40 : 1 + i % 300);
      }
      byte[] encoded = encode(histogram);

      Histogram read = new Histogram(digits);
      EncodedCounts.addTo(encoded, CountsIndex.forDigits(digits), read);

      assertThat(read).isEqualTo(Histogram.decodeFromByteBuffer(ByteBuffer.wrap(encoded), 0));
      assertThat(read).isEqualTo(histogram);
    }
  }

  @Test
  void addTo_addsToWhatTheTargetHolds() {
    IntCountsHistogram slice = new IntCountsHistogram(2);
    slice.recordValue(0);
    slice.recordValue(1_500);
    slice.recordValueWithCount(7_000_000, 3);
    Histogram target = new Histogram(2);
    target.recordValue(1_500);

    EncodedCounts.addTo(encode(slice), CountsIndex.forDigits(2), target);

    assertThat(target.getTotalCount()).isEqualTo(6);
    assertThat(target.getCountAtValue(0)).isEqualTo(1);
    assertThat(target.getCountAtValue(1_500)).isEqualTo(2);
    assertThat(target.getCountAtValue(7_000_000)).isEqualTo(3);
  }

  @Test
  void addTo_anEmptyHistogram_addsNothing() {
    Histogram target = new Histogram(2);

    EncodedCounts.addTo(encode(new Histogram(2)), CountsIndex.forDigits(2), target);

    assertThat(target.getTotalCount()).isZero();
  }

  @Test
  void addTo_theDeflatedEncoding_isRefused() {
    Histogram histogram = new Histogram(2);
    histogram.recordValue(42);
    ByteBuffer buffer = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
    int length = histogram.encodeIntoCompressedByteBuffer(buffer);

    assertThatThrownBy(() -> EncodedCounts.addTo(Arrays.copyOf(buffer.array(), length),
        CountsIndex.forDigits(2), new Histogram(2)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("V2");
  }

  private static byte[] encode(AbstractHistogram histogram) {
    ByteBuffer buffer = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
    int length = histogram.encodeIntoByteBuffer(buffer);
    return Arrays.copyOf(buffer.array(), length);
  }
}
