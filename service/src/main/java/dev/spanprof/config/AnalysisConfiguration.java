package dev.spanprof.config;

import io.micronaut.context.annotation.ConfigurationProperties;

/** {@code spanprof.analysis.*}: the worker pool that analyses completed traces. */
@ConfigurationProperties(AnalysisConfiguration.PREFIX)
public final class AnalysisConfiguration {

  public static final String PREFIX = "spanprof.analysis";
  /** 0 means one worker per available processor. */
  public static final int DEFAULT_WORKERS = 0;
  /** At a heap of 2 GiB or more; less in proportion ({@link HeapShare}). */
  public static final long DEFAULT_MAX_QUEUED_SPANS = 100_000;

  private int workers = DEFAULT_WORKERS;
  private long maxQueuedSpans = HeapShare.scaled(DEFAULT_MAX_QUEUED_SPANS);

  public int getWorkers() {
    return workers;
  }

  public void setWorkers(int workers) {
    this.workers = workers;
  }

  public long getMaxQueuedSpans() {
    return maxQueuedSpans;
  }

  public void setMaxQueuedSpans(long maxQueuedSpans) {
    this.maxQueuedSpans = maxQueuedSpans;
  }

  /**
   * The configured workers, or by default one per available processor. Two per processor kept
   * the analysis level with its intake when it was slower, but now only spends more CPU per span
   * on the hand-offs between more threads than cores (BENCHMARKS.md, `bench/fixed-rate.sh`).
   */
  public int effectiveWorkers() {
    if (workers < 0) {
      throw new IllegalArgumentException(PREFIX + ".workers must not be negative, was " + workers);
    }
    return workers == 0 ? Runtime.getRuntime().availableProcessors() : workers;
  }
}
