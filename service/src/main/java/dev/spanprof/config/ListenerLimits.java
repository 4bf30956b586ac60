package dev.spanprof.config;

import io.micronaut.context.annotation.ConfigurationProperties;
import java.time.Duration;

/**
 * {@code spanprof.ingest.*}: limits that keep slow and greedy clients from holding the receivers'
 * listeners (gRPC 4317, HTTP 4318). The HTTP ones are handed to Micronaut's server in
 * application.yml; the gRPC ones are set on its Netty server.
 */
@ConfigurationProperties(IngestConfiguration.PREFIX)
public final class ListenerLimits {

  private int maxConnections = 1024;
  private Duration idleTimeout = Duration.ofMinutes(5);
  private Duration readHeaderTimeout = Duration.ofMinutes(1);
  private Duration handshakeTimeout = Duration.ofSeconds(10);
  private int grpcMaxConcurrentStreams = 100;
  private Duration grpcMaxConnectionAge = Duration.ofMinutes(30);
  private Duration grpcKeepaliveMinTime = Duration.ofSeconds(30);

  /** Open connections on each listener; a further one is closed as it is accepted. */
  public int getMaxConnections() {
    return maxConnections;
  }

  public void setMaxConnections(int maxConnections) {
    this.maxConnections = maxConnections;
  }

  /** A connection without a request (HTTP) or a call (gRPC) this long is closed. */
  public Duration getIdleTimeout() {
    return idleTimeout;
  }

  public void setIdleTimeout(Duration idleTimeout) {
    this.idleTimeout = idleTimeout;
  }

  /**
   * HTTP: a request's headers must arrive whole within this of the connection's opening (its
   * first request) or of their first byte (later ones), however slowly bytes keep coming: the
   * Collector's {@code read_header_timeout}.
   */
  public Duration getReadHeaderTimeout() {
    return readHeaderTimeout;
  }

  public void setReadHeaderTimeout(Duration readHeaderTimeout) {
    if (readHeaderTimeout == null || readHeaderTimeout.isNegative() || readHeaderTimeout.isZero()) {
      throw new IllegalArgumentException(IngestConfiguration.PREFIX
          + ".read-header-timeout must be positive, was " + readHeaderTimeout);
    }
    this.readHeaderTimeout = readHeaderTimeout;
  }

  /** gRPC: a connection must have finished its TLS and HTTP/2 handshakes within this. */
  public Duration getHandshakeTimeout() {
    return handshakeTimeout;
  }

  public void setHandshakeTimeout(Duration handshakeTimeout) {
    this.handshakeTimeout = handshakeTimeout;
  }

  /** gRPC: concurrent calls on one connection. */
  public int getGrpcMaxConcurrentStreams() {
    return grpcMaxConcurrentStreams;
  }

  public void setGrpcMaxConcurrentStreams(int grpcMaxConcurrentStreams) {
    this.grpcMaxConcurrentStreams = grpcMaxConcurrentStreams;
  }

  /** gRPC: a connection is asked to go away after this, so load balancing reaches new replicas. */
  public Duration getGrpcMaxConnectionAge() {
    return grpcMaxConnectionAge;
  }

  public void setGrpcMaxConnectionAge(Duration grpcMaxConnectionAge) {
    this.grpcMaxConnectionAge = grpcMaxConnectionAge;
  }

  /** gRPC: clients may ping no more often than this (keepalive enforcement), nor without calls. */
  public Duration getGrpcKeepaliveMinTime() {
    return grpcKeepaliveMinTime;
  }

  public void setGrpcKeepaliveMinTime(Duration grpcKeepaliveMinTime) {
    this.grpcKeepaliveMinTime = grpcKeepaliveMinTime;
  }
}
