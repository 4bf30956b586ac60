package dev.spanprof.config;

import io.micronaut.context.annotation.ConfigurationProperties;

/** {@code spanprof.management.*}: the metrics and health listener. */
@ConfigurationProperties(ManagementConfiguration.PREFIX)
public final class ManagementConfiguration {

  public static final String PREFIX = "spanprof.management";
  public static final String DEFAULT_HOST = "0.0.0.0";
  /** The OpenTelemetry Prometheus exporter's customary port. 0 picks a free one. */
  public static final int DEFAULT_PORT = 9464;

  private String host = DEFAULT_HOST;
  private int port = DEFAULT_PORT;

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
}
