package dev.spanprof.config;

import io.micronaut.context.annotation.ConfigurationProperties;

/** {@code spanprof.memory.*}: the heap spanprof lets itself fill before it refuses spans. */
@ConfigurationProperties(MemoryConfiguration.PREFIX)
public final class MemoryConfiguration {

  public static final String PREFIX = "spanprof.memory";
  /**
   * As the Collector's {@code memory_limiter} is commonly set. The default bounds keep what
   * spanprof holds well below it (docs/operations.md, "Memory"); above it the collector would soon be
   * collecting without end.
   */
  public static final int DEFAULT_LIMIT_PERCENTAGE = 80;

  private int limitPercentage = DEFAULT_LIMIT_PERCENTAGE;

  /** The share of the maximum heap, after a collection, above which new spans are refused. */
  public int getLimitPercentage() {
    return limitPercentage;
  }

  public void setLimitPercentage(int limitPercentage) {
    if (limitPercentage < 1 || limitPercentage > 100) {
      throw new IllegalArgumentException(
          PREFIX + ".limit-percentage must be 1 to 100, was " + limitPercentage);
    }
    this.limitPercentage = limitPercentage;
  }
}
