package dev.spanprof.config;

import io.micronaut.context.annotation.ConfigurationProperties;
import java.time.Duration;

/** {@code spanprof.management.*}: the metrics and health listener. */
@ConfigurationProperties(ManagementConfiguration.PREFIX)
public final class ManagementConfiguration {

  public static final String PREFIX = "spanprof.management";
  public static final String DEFAULT_HOST = "0.0.0.0";
  /** The OpenTelemetry Prometheus exporter's customary port. 0 picks a free one. */
  public static final int DEFAULT_PORT = 9464;

  /** Long enough for any real client to send a request's few hundred bytes. */
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);
  /** Longer than Prometheus's scrape interval, so a scraper's connection is reused. */
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(60);
  public static final int DEFAULT_MAX_CONNECTIONS = 256;

  private String host = DEFAULT_HOST;
  private int port = DEFAULT_PORT;
  private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
  private Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;
  private int maxConnections = DEFAULT_MAX_CONNECTIONS;
  private String readTokensFile = "";

  public String getHost() {
    return host;
  }

  public void setHost(String host) {
    this.host = host;
  }

  public int getPort() {
    return port;
  }

  public void setPort(int port) {
    this.port = port;
  }

  /**
   * How long a request may take to arrive whole: the first from the connection's opening, a later
   * one from its first byte.
   */
  public Duration getRequestTimeout() {
    return requestTimeout;
  }

  public void setRequestTimeout(Duration requestTimeout) {
    this.requestTimeout = requirePositive(requestTimeout, "request-timeout");
  }

  /** How long a connection may stay open between requests. */
  public Duration getIdleTimeout() {
    return idleTimeout;
  }

  public void setIdleTimeout(Duration idleTimeout) {
    this.idleTimeout = requirePositive(idleTimeout, "idle-timeout");
  }

  /** Connections open at once; one more is closed as it opens. */
  public int getMaxConnections() {
    return maxConnections;
  }

  public void setMaxConnections(int maxConnections) {
    if (maxConnections < 1) {
      throw new IllegalArgumentException(
          PREFIX + ".max-connections must be at least 1, was " + maxConnections);
    }
    this.maxConnections = maxConnections;
  }

  /**
   * Bearer tokens that may scrape {@code /metrics}, which names services and operations and, in
   * OpenMetrics, carries exemplar trace ids; empty: anyone. The health probes stay open.
   */
  public String getReadTokensFile() {
    return readTokensFile;
  }

  public void setReadTokensFile(String readTokensFile) {
    this.readTokensFile = readTokensFile == null ? "" : readTokensFile;
  }

  private static Duration requirePositive(Duration duration, String key) {
    if (duration == null || duration.isNegative() || duration.isZero()) {
      throw new IllegalArgumentException(PREFIX + "." + key + " must be positive, was " + duration);
    }
    return duration;
  }
}
