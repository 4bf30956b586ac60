package dev.spanprof.config;

import io.micronaut.context.annotation.ConfigurationProperties;
import java.time.Duration;
import java.util.List;

/** {@code spanprof.metrics.*}: labels and cardinality of the distribution series. */
@ConfigurationProperties(MetricsConfiguration.PREFIX)
public final class MetricsConfiguration {

  public static final String PREFIX = "spanprof.metrics";
  /** At a heap of 2 GiB or more; less in proportion ({@link HeapShare}). */
  public static final int DEFAULT_MAX_SERIES = 10_000;
  public static final Duration DEFAULT_SERIES_EXPIRY = Duration.ofMinutes(15);

  private List<String> dimensions = List.of();
  private int maxSeries = HeapShare.scaled(DEFAULT_MAX_SERIES);
  private Duration seriesExpiry = DEFAULT_SERIES_EXPIRY;

  /**
   * Extra labels from span (then resource) attributes, as in the spanmetrics connector; the label
   * name is the attribute key with dots as underscores.
   */
  public List<String> getDimensions() {
    return dimensions;
  }

  public void setDimensions(List<String> dimensions) {
    this.dimensions = dimensions;
  }

  public int getMaxSeries() {
    return maxSeries;
  }

  public void setMaxSeries(int maxSeries) {
    this.maxSeries = maxSeries;
  }

  public Duration getSeriesExpiry() {
    return seriesExpiry;
  }

  public void setSeriesExpiry(Duration seriesExpiry) {
    this.seriesExpiry = seriesExpiry;
  }
}
