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
   * The configured workers, or by default two per available processor: the analysis shares the
   * cores with ingest and forwarding, and the scheduler shares them out by runnable thread, so one
   * worker per core left it behind its intake (BENCHMARKS.md: flat out on two cores, 2 workers
   * analysed 41 600 spans/s, 4 workers 54 500, 8 workers 51 400).
   */
  public int effectiveWorkers() {
    if (workers < 0) {
      throw new IllegalArgumentException(PREFIX + ".workers must not be negative, was " + workers);
    }
    return workers == 0 ? 2 * Runtime.getRuntime().availableProcessors() : workers;
  }
}
