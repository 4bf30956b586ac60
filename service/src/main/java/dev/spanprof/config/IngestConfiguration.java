package dev.spanprof.config;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.convert.format.ReadableBytes;
import java.time.Duration;

/** {@code spanprof.ingest.*}: limits and hints of the OTLP endpoints. */
@ConfigurationProperties(IngestConfiguration.PREFIX)
public final class IngestConfiguration {

  public static final String PREFIX = "spanprof.ingest";
  /** 16 MiB, as the OpenTelemetry Collector's OTLP receiver allows by default (gRPC: 4 MiB). */
  public static final int DEFAULT_MAX_MESSAGE_SIZE = 16 * 1024 * 1024;
  public static final int DEFAULT_MAX_INTERNED_STRINGS = 100_000;
  public static final Duration DEFAULT_RETRY_AFTER = Duration.ofSeconds(1);
  /**
   * What the default bounds' spans use of the store flat out, 234 to 386 MB, the most while the
   * forwarding queue is full, and a third more for slabs that stragglers keep part-filled; at 384
   * MB, scaled to a 1.5 GiB heap, the peak overflowed ({@code bench/store-use.sh}, BENCHMARKS.md,
   * "Memory"). At a heap of 2 GiB or more; less in proportion ({@link HeapShare}), as the bounds
   * it holds the spans of.
   */
  public static final long DEFAULT_SPAN_STORE_SIZE = 512L * 1024 * 1024;
  /** 0: one thread per available processor. */
  public static final int DEFAULT_GRPC_THREADS = 0;

  private int maxMessageSize = DEFAULT_MAX_MESSAGE_SIZE;
  private int maxInternedStrings = DEFAULT_MAX_INTERNED_STRINGS;
  private Duration retryAfter = DEFAULT_RETRY_AFTER;
  private long spanStoreSize = HeapShare.scaled(DEFAULT_SPAN_STORE_SIZE);
  private int grpcThreads = DEFAULT_GRPC_THREADS;

  /** The largest request body, after decompression, in bytes. */
  public int getMaxMessageSize() {
    return maxMessageSize;
  }

  public void setMaxMessageSize(@ReadableBytes int maxMessageSize) {
    this.maxMessageSize = maxMessageSize;
  }

  public int getMaxInternedStrings() {
    return maxInternedStrings;
  }

  public void setMaxInternedStrings(int maxInternedStrings) {
    this.maxInternedStrings = maxInternedStrings;
  }

  /** How long a client is told to wait before retrying a refused request. */
  public Duration getRetryAfter() {
    return retryAfter;
  }

  public void setRetryAfter(Duration retryAfter) {
    this.retryAfter = retryAfter;
  }

  /**
   * The most heap kept in reused arrays for the encoded bytes of the spans spanprof holds
   * (buffered, queued, being forwarded); beyond it a span gets an array of its own.
   */
  public long getSpanStoreSize() {
    return spanStoreSize;
  }

  public void setSpanStoreSize(@ReadableBytes long spanStoreSize) {
    if (spanStoreSize < 0) {
      throw new IllegalArgumentException(
          PREFIX + ".span-store-size must not be negative, was " + spanStoreSize);
    }
    this.spanStoreSize = spanStoreSize;
  }

  /** The threads that run the gRPC server's calls; 0 for one per available processor. */
  public int getGrpcThreads() {
    return grpcThreads;
  }

  public void setGrpcThreads(int grpcThreads) {
    if (grpcThreads < 0) {
      throw new IllegalArgumentException(
          PREFIX + ".grpc-threads must not be negative, was " + grpcThreads);
    }
    this.grpcThreads = grpcThreads;
  }

  /** The configured gRPC threads, or one per available processor. */
  public int effectiveGrpcThreads() {
    return grpcThreads == 0 ? Runtime.getRuntime().availableProcessors() : grpcThreads;
  }
}
