package dev.spanprof.config;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.convert.format.ReadableBytes;
import java.time.Duration;

/** {@code spanprof.export.spool.*}: the on-disk spool of accepted spans (off by default). */
@ConfigurationProperties(SpoolConfiguration.PREFIX)
public final class SpoolConfiguration {

  public static final String PREFIX = "spanprof.export.spool";
  public static final long DEFAULT_MAX_SIZE = 1024L * 1024 * 1024;
  public static final long DEFAULT_SEGMENT_SIZE = 64L * 1024 * 1024;
  /** At most a second of requests lost to a crash of the machine (not of the process). */
  public static final Duration DEFAULT_FSYNC_INTERVAL = Duration.ofSeconds(1);

  private String directory = "";
  private long maxSize = DEFAULT_MAX_SIZE;
  private long segmentSize = DEFAULT_SEGMENT_SIZE;
  private Duration fsyncInterval = DEFAULT_FSYNC_INTERVAL;

  /** Where the spool's segments are kept; empty: no spool. */
  public String getDirectory() {
    return directory;
  }

  public void setDirectory(String directory) {
    this.directory = directory == null ? "" : directory.trim();
  }

  public boolean enabled() {
    return !directory.isEmpty();
  }

  /** The most disk the spool takes; beyond it, requests are refused. */
  public long getMaxSize() {
    return maxSize;
  }

  public void setMaxSize(@ReadableBytes long maxSize) {
    if (maxSize < 1) {
      throw new IllegalArgumentException(PREFIX + ".max-size must be positive, was " + maxSize);
    }
    this.maxSize = maxSize;
  }

  public long getSegmentSize() {
    return segmentSize;
  }

  public void setSegmentSize(@ReadableBytes long segmentSize) {
    if (segmentSize < 1) {
      throw new IllegalArgumentException(
          PREFIX + ".segment-size must be positive, was " + segmentSize);
    }
    this.segmentSize = segmentSize;
  }

  /** How often what was written is synced to the disk; 0: before each request is answered. */
  public Duration getFsyncInterval() {
    return fsyncInterval;
  }

  public void setFsyncInterval(Duration fsyncInterval) {
    if (fsyncInterval == null || fsyncInterval.isNegative()) {
      throw new IllegalArgumentException(
          PREFIX + ".fsync-interval must not be negative, was " + fsyncInterval);
    }
    this.fsyncInterval = fsyncInterval;
  }
}
