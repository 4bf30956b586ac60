package dev.spanprof.config;

import io.micronaut.context.annotation.ConfigurationProperties;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * {@code spanprof.export.*}: forwarding every span to the next hop over OTLP, named like the
 * OpenTelemetry exporter settings. No endpoint: nothing is forwarded (metrics only).
 */
@ConfigurationProperties(ExportConfiguration.PREFIX)
public final class ExportConfiguration {

  public static final String PREFIX = "spanprof.export";
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
  public static final int DEFAULT_MAX_BATCH_SPANS = 1024;
  public static final Duration DEFAULT_FLUSH_INTERVAL = Duration.ofSeconds(1);
  /** At a heap of 2 GiB or more; less in proportion ({@link HeapShare}). */
  public static final int DEFAULT_QUEUE_SPANS = 200_000;
  /** Concurrent export requests, like the collector's {@code sending_queue.num_consumers}. */
  public static final int DEFAULT_NUM_CONSUMERS = 4;
  public static final int DEFAULT_COMPRESSION_LEVEL = 1;
  public static final Duration DEFAULT_MAX_ELAPSED = Duration.ofMinutes(5);
  public static final Duration DEFAULT_INITIAL_BACKOFF = Duration.ofSeconds(1);
  /**
   * Short, so that forwarding resumes within seconds of the next hop's return even when no other
   * sender's request wakes the waiting ones (the Collector's default is 30 s).
   */
  public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(5);

  /** How spans are sent. */
  public enum Protocol { GRPC, HTTP_PROTOBUF, HTTP_JSON }

  /** When spans are sent: after analysis with attributes added, or at once as received. */
  public enum Mode { ENRICHED, PASSTHROUGH }

  /**
   * How requests are compressed. zstd, which the Collector's OTLP receivers take as gzip's
   * alternative, costs about a third of gzip's CPU at level 1 for smaller output (BENCHMARKS.md).
   */
  public enum Compression {
    NONE(0), GZIP(9), ZSTD(22);

    private final int maxLevel;

    Compression(int maxLevel) {
      this.maxLevel = maxLevel;
    }

    /** The name both gRPC's message encoding and HTTP's Content-Encoding use. */
    public String encoding() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private String endpoint = "";
  private String protocol = "grpc";
  private Map<String, String> headers = new LinkedHashMap<>();
  private String compression = "gzip";
  private int compressionLevel = DEFAULT_COMPRESSION_LEVEL;
  private Duration timeout = DEFAULT_TIMEOUT;
  private String caFile = "";
  private String certFile = "";
  private String keyFile = "";
  private boolean insecure;
  private int maxBatchSpans = DEFAULT_MAX_BATCH_SPANS;
  private Duration flushInterval = DEFAULT_FLUSH_INTERVAL;
  private int queueSpans = HeapShare.scaled(DEFAULT_QUEUE_SPANS);
  private int numConsumers = DEFAULT_NUM_CONSUMERS;
  private Duration maxElapsed = DEFAULT_MAX_ELAPSED;
  private Duration initialBackoff = DEFAULT_INITIAL_BACKOFF;
  private Duration maxBackoff = DEFAULT_MAX_BACKOFF;
  private String mode = "enriched";

  /** The next hop: {@code http://host:4317} for gRPC, {@code http://host:4318} (or a full
   *  {@code …/v1/traces} URL) for HTTP; {@code https://} for TLS. Empty: no forwarding. */
  public String getEndpoint() {
    return endpoint;
  }

  public void setEndpoint(String endpoint) {
    this.endpoint = endpoint;
  }

  /** {@code grpc}, {@code http/protobuf} or {@code http/json}. */
  public String getProtocol() {
    return protocol;
  }

  public void setProtocol(String protocol) {
    this.protocol = protocol;
  }

  public Map<String, String> getHeaders() {
    return headers;
  }

  public void setHeaders(Map<String, String> headers) {
    this.headers = headers;
  }

  /** {@code gzip}, {@code zstd} or {@code none}. */
  public String getCompression() {
    return compression;
  }

  public void setCompression(String compression) {
    this.compression = compression;
  }

  /** The level, 1 (fastest) to 9 (smallest) for gzip, to 22 for zstd. */
  public int getCompressionLevel() {
    return compressionLevel;
  }

  public void setCompressionLevel(int compressionLevel) {
    this.compressionLevel = compressionLevel;
  }

  /** How long one export request may take. */
  public Duration getTimeout() {
    return timeout;
  }

  public void setTimeout(Duration timeout) {
    this.timeout = timeout;
  }

  /** PEM file of the CA that signed the next hop's certificate (else the JVM's trust store). */
  public String getCaFile() {
    return caFile;
  }

  public void setCaFile(String caFile) {
    this.caFile = caFile;
  }

  /** PEM client certificate, for mutual TLS. */
  public String getCertFile() {
    return certFile;
  }

  public void setCertFile(String certFile) {
    this.certFile = certFile;
  }

  /** PEM (PKCS#8) client key, for mutual TLS. */
  public String getKeyFile() {
    return keyFile;
  }

  public void setKeyFile(String keyFile) {
    this.keyFile = keyFile;
  }

  /** Plaintext even for an {@code https://} endpoint, as the collector's {@code tls.insecure}. */
  public boolean isInsecure() {
    return insecure;
  }

  public void setInsecure(boolean insecure) {
    this.insecure = insecure;
  }

  public int getMaxBatchSpans() {
    return maxBatchSpans;
  }

  public void setMaxBatchSpans(int maxBatchSpans) {
    this.maxBatchSpans = maxBatchSpans;
  }

  /** How long a batch waits to fill before it is sent anyway. */
  public Duration getFlushInterval() {
    return flushInterval;
  }

  public void setFlushInterval(Duration flushInterval) {
    this.flushInterval = flushInterval;
  }

  public int getQueueSpans() {
    return queueSpans;
  }

  public void setQueueSpans(int queueSpans) {
    this.queueSpans = queueSpans;
  }

  /** How many batches are sent at once. */
  public int getNumConsumers() {
    return numConsumers;
  }

  public void setNumConsumers(int numConsumers) {
    this.numConsumers = numConsumers;
  }

  /** How long a batch is retried before it is given up. */
  public Duration getMaxElapsed() {
    return maxElapsed;
  }

  public void setMaxElapsed(Duration maxElapsed) {
    this.maxElapsed = maxElapsed;
  }

  public Duration getInitialBackoff() {
    return initialBackoff;
  }

  public void setInitialBackoff(Duration initialBackoff) {
    this.initialBackoff = initialBackoff;
  }

  public Duration getMaxBackoff() {
    return maxBackoff;
  }

  public void setMaxBackoff(Duration maxBackoff) {
    this.maxBackoff = maxBackoff;
  }

  /** {@code enriched} (default) or {@code passthrough}. */
  public String getMode() {
    return mode;
  }

  public void setMode(String mode) {
    this.mode = mode;
  }

  public boolean enabled() {
    return endpoint != null && !endpoint.isBlank();
  }

  public Protocol protocolValue() {
    return switch (protocol.trim().toLowerCase(Locale.ROOT)) {
      case "grpc" -> Protocol.GRPC;
      case "http/protobuf" -> Protocol.HTTP_PROTOBUF;
      case "http/json" -> Protocol.HTTP_JSON;
      default -> throw new IllegalArgumentException(PREFIX + ".protocol must be grpc, http/protobuf "
          + "or http/json, got '" + protocol + "'");
    };
  }

  public Mode modeValue() {
    return switch (mode.trim().toLowerCase(Locale.ROOT)) {
      case "enriched" -> Mode.ENRICHED;
      case "passthrough" -> Mode.PASSTHROUGH;
      default -> throw new IllegalArgumentException(
          PREFIX + ".mode must be enriched or passthrough, got '" + mode + "'");
    };
  }

  /** The level to compress with, checked against the compression's range; 0 when it is off. */
  public int compressionLevelValue() {
    Compression compression = compressionValue();
    if (compression == Compression.NONE) {
      return 0;
    }
    if (compressionLevel < 1 || compressionLevel > compression.maxLevel) {
      throw new IllegalArgumentException(PREFIX + ".compression-level must be 1 to "
          + compression.maxLevel + " for " + compression.encoding() + ", got " + compressionLevel);
    }
    return compressionLevel;
  }

  public Compression compressionValue() {
    return switch (compression.trim().toLowerCase(Locale.ROOT)) {
      case "gzip" -> Compression.GZIP;
      case "zstd" -> Compression.ZSTD;
      case "none", "" -> Compression.NONE;
      default -> throw new IllegalArgumentException(
          PREFIX + ".compression must be gzip, zstd or none, got '" + compression + "'");
    };
  }
}
