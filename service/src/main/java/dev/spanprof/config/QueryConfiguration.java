package dev.spanprof.config;

import io.micronaut.context.annotation.ConfigurationProperties;

/** {@code spanprof.query.*}: what the query API keeps. */
@ConfigurationProperties(QueryConfiguration.PREFIX)
public final class QueryConfiguration {

  public static final String PREFIX = "spanprof.query";
  /** At a heap of 2 GiB or more; less in proportion ({@link HeapShare}). */
  public static final int DEFAULT_RECENT_TRACES = 10_000;

  private int recentTraces = HeapShare.scaled(DEFAULT_RECENT_TRACES);

  /** How many analysed trace profiles {@code GET /api/v1/traces/{traceId}} can answer for. */
  public int getRecentTraces() {
    return recentTraces;
  }

  public void setRecentTraces(int recentTraces) {
    if (recentTraces < 1) {
      throw new IllegalArgumentException(PREFIX + ".recent-traces must be at least 1, was " + recentTraces);
    }
    this.recentTraces = recentTraces;
  }
}
