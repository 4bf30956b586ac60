package dev.spanprof.config;

import io.micronaut.context.annotation.ConfigurationProperties;
import java.time.Duration;

/** {@code spanprof.assembly.*}: when traces complete and how many spans may wait. */
@ConfigurationProperties(AssemblyConfiguration.PREFIX)
public final class AssemblyConfiguration {

  public static final String PREFIX = "spanprof.assembly";
  public static final Duration DEFAULT_TRACE_TIMEOUT = Duration.ofSeconds(5);
  public static final Duration DEFAULT_MAX_TRACE_AGE = Duration.ofSeconds(60);
  /** At a heap of 2 GiB or more; less in proportion ({@link HeapShare}). */
  public static final long DEFAULT_MAX_BUFFERED_SPANS = 500_000;
  /** As the analysis queue, which must hold a fragment ({@link HeapShare}). */
  public static final int DEFAULT_MAX_SPANS_PER_TRACE = 100_000;
  public static final int DEFAULT_RECENT_TRACE_IDS = 100_000;
  /**
   * A trace completes up to this long after its timeout. Each sweep wakes a thread, and the
   * analysis and forwarding behind it: at 100 ms the sweeper took a third of an idle spanprof's
   * CPU and 0.5 µs per span at 2 000 spans/s ({@code bench/fixed-rate.sh}).
   */
  public static final Duration DEFAULT_SWEEP_INTERVAL = Duration.ofSeconds(1);

  private Duration traceTimeout = DEFAULT_TRACE_TIMEOUT;
  private Duration maxTraceAge = DEFAULT_MAX_TRACE_AGE;
  private long maxBufferedSpans = HeapShare.scaled(DEFAULT_MAX_BUFFERED_SPANS);
  private int maxSpansPerTrace = HeapShare.scaled(DEFAULT_MAX_SPANS_PER_TRACE);
  private int recentTraceIds = DEFAULT_RECENT_TRACE_IDS;
  private Duration sweepInterval = DEFAULT_SWEEP_INTERVAL;

  public Duration getTraceTimeout() {
    return traceTimeout;
  }

  public void setTraceTimeout(Duration traceTimeout) {
    this.traceTimeout = traceTimeout;
  }

  public Duration getMaxTraceAge() {
    return maxTraceAge;
  }

  public void setMaxTraceAge(Duration maxTraceAge) {
    this.maxTraceAge = maxTraceAge;
  }

  public long getMaxBufferedSpans() {
    return maxBufferedSpans;
  }

  public void setMaxBufferedSpans(long maxBufferedSpans) {
    this.maxBufferedSpans = maxBufferedSpans;
  }

  public int getMaxSpansPerTrace() {
    return maxSpansPerTrace;
  }

  public void setMaxSpansPerTrace(int maxSpansPerTrace) {
    this.maxSpansPerTrace = maxSpansPerTrace;
  }

  public int getRecentTraceIds() {
    return recentTraceIds;
  }

  public void setRecentTraceIds(int recentTraceIds) {
    this.recentTraceIds = recentTraceIds;
  }

  public Duration getSweepInterval() {
    return sweepInterval;
  }

  public void setSweepInterval(Duration sweepInterval) {
    this.sweepInterval = sweepInterval;
  }
}
