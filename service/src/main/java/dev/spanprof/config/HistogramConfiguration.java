package dev.spanprof.config;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.convert.format.MapFormat;
import io.micronaut.core.naming.conventions.StringConvention;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code spanprof.histogram.*}: how distributions are recorded and exported (semantics.md §5). */
@ConfigurationProperties(HistogramConfiguration.PREFIX)
public final class HistogramConfiguration {

  public static final String PREFIX = "spanprof.histogram";
  public static final int DEFAULT_SIGNIFICANT_DIGITS = 2;
  public static final Duration DEFAULT_WINDOW = Duration.ofMinutes(1);
  /** The window is rotated a sixth at a time. */
  public static final int WINDOW_SLICES = 6;
  /** The spanmetrics connector's default bucket bounds. */
  public static final List<Duration> DEFAULT_BUCKETS = List.of(2, 4, 6, 8, 10, 50, 100, 200, 400,
      800, 1000, 1400, 2000, 5000, 10000, 15000).stream().map(Duration::ofMillis).toList();
  public static final List<Double> DEFAULT_QUANTILES = List.of(0.5, 0.9, 0.99, 0.999);

  private int significantDigits = DEFAULT_SIGNIFICANT_DIGITS;
  private Duration window = DEFAULT_WINDOW;
  private List<Duration> buckets = DEFAULT_BUCKETS;
  private List<Double> quantiles = DEFAULT_QUANTILES;
  private Map<String, Duration> expectedInterval = new LinkedHashMap<>();

  public int getSignificantDigits() {
    return significantDigits;
  }

  public void setSignificantDigits(int significantDigits) {
    this.significantDigits = significantDigits;
  }

  public Duration getWindow() {
    return window;
  }

  public void setWindow(Duration window) {
    this.window = window;
  }

  /** Upper bounds of the exported classic histogram buckets. */
  public List<Duration> getBuckets() {
    return buckets;
  }

  public void setBuckets(List<Duration> buckets) {
    this.buckets = buckets;
  }

  /** Quantiles exported as spanprof_duration_quantile_seconds, besides max. */
  public List<Double> getQuantiles() {
    return quantiles;
  }

  public void setQuantiles(List<Double> quantiles) {
    this.quantiles = quantiles;
  }

  /** {@code <service>/<operation>} → the interval its requests are expected at. */
  public Map<String, Duration> getExpectedInterval() {
    return expectedInterval;
  }

  // RAW: the keys are pool ids or operation names, and case matters in them (by default Micronaut
  // lowercases map keys, so "Checkout/*" would never match a pool of service Checkout).
  public void setExpectedInterval(
      @MapFormat(keyFormat = StringConvention.RAW) Map<String, Duration> expectedInterval) {
    this.expectedInterval = expectedInterval;
  }
}
