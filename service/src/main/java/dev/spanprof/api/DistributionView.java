package dev.spanprof.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.micronaut.serde.annotation.Serdeable;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.AbstractHistogram;

/**
 * One view of a distribution for the query APIs: summary figures, the configured quantiles, the
 * percentile curve and the histogram in HdrHistogram's compressed V2 encoding (base64), which
 * other replicas' encodings can be added to for exact merged quantiles. Values in nanoseconds.
 */
@Serdeable
@JsonInclude(JsonInclude.Include.ALWAYS)
public record DistributionView(
    long count,
    long minNs,
    long maxNs,
    double meanNs,
    double stddevNs,
    Map<String, Long> quantilesNs,
    List<Percentile> percentiles,
    String histogram) {

  /** The value at a percentile (0–100). */
  @Serdeable
  public record Percentile(double percentile, long valueNs) {}

  /** 50, 75, 87.5, … halving what is left, up to 99.9999 %. */
  static final List<Double> CURVE = curve();

  public static DistributionView of(AbstractHistogram histogram, List<Double> quantiles) {
    boolean empty = histogram.getTotalCount() == 0;
    Map<String, Long> quantileValues = new LinkedHashMap<>();
    for (double quantile : quantiles) {
      quantileValues.put(Double.toString(quantile),
          empty ? 0 : histogram.getValueAtPercentile(quantile * 100));
    }
    List<Percentile> percentiles = new ArrayList<>(CURVE.size());
    for (double percentile : CURVE) {
      percentiles.add(new Percentile(percentile, empty ? 0 : histogram.getValueAtPercentile(percentile)));
    }
    return new DistributionView(histogram.getTotalCount(),
        empty ? 0 : histogram.getMinValue(), empty ? 0 : histogram.getMaxValue(),
        empty ? 0 : histogram.getMean(), empty ? 0 : histogram.getStdDeviation(),
        quantileValues, percentiles, Base64.getEncoder().encodeToString(encode(histogram)));
  }

  /** HdrHistogram's compressed V2 encoding. */
  static byte[] encode(AbstractHistogram histogram) {
    ByteBuffer buffer = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
    int length = histogram.encodeIntoCompressedByteBuffer(buffer);
    return Arrays.copyOf(buffer.array(), length);
  }

  private static List<Double> curve() {
    List<Double> curve = new ArrayList<>();
    double remaining = 50;
    double percentile = 50;
    while (percentile < 99.9999) {
      curve.add(percentile);
      remaining /= 2;
      percentile = 100 - remaining;
    }
    curve.add(99.9999);
    return List.copyOf(curve);
  }
}
