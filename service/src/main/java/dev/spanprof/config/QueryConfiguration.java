package dev.spanprof.config;

import io.micronaut.context.annotation.ConfigurationProperties;
import java.time.Duration;
import java.util.List;

/**
 * {@code spanprof.query.*}: what the query API keeps, and the replicas it answers for
 * (contract.md, "A fleet of replicas").
 */
@ConfigurationProperties(QueryConfiguration.PREFIX)
public final class QueryConfiguration {

  public static final String PREFIX = "spanprof.query";
  /** At a heap of 2 GiB or more; less in proportion ({@link HeapShare}). */
  public static final int DEFAULT_RECENT_TRACES = 10_000;

  /** At a heap of 2 GiB or more; less in proportion ({@link HeapShare}). */
  public static final long DEFAULT_RECENT_TRACE_BYTES = 64L << 20;

  private int recentTraces = HeapShare.scaled(DEFAULT_RECENT_TRACES);
  private long recentTraceBytes = HeapShare.scaled(DEFAULT_RECENT_TRACE_BYTES);
  private List<String> peers = List.of();
  private Duration peerTimeout = Duration.ofSeconds(5);
  private String peerTokenFile;
  private String peerCaFile = "";

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

  /**
   * How many bytes the recent traces' original spans (their attributes, events, links and
   * resources, for the trace page) may hold; the oldest trace's go first, its profile stays.
   */
  public long getRecentTraceBytes() {
    return recentTraceBytes;
  }

  public void setRecentTraceBytes(long recentTraceBytes) {
    if (recentTraceBytes < 0) {
      throw new IllegalArgumentException(
          PREFIX + ".recent-trace-bytes must not be negative, was " + recentTraceBytes);
    }
    this.recentTraceBytes = recentTraceBytes;
  }

  /**
   * The replicas a query answers for, this one among them: base URLs ({@code
   * http://10.0.0.5:4318}) or {@code dns+http://NAME:PORT} (every address of NAME, resolved at
   * each query); empty: this process alone.
   */
  public List<String> getPeers() {
    return peers;
  }

  public void setPeers(List<String> peers) {
    for (String peer : peers) {
      if (!peer.matches("(dns\\+)?https?://[^/?#\\s]+(:\\d+)?/?")) {
        throw new IllegalArgumentException(PREFIX + ".peers: '" + peer + "' is neither "
            + "http(s)://HOST:PORT nor dns+http(s)://NAME:PORT");
      }
    }
    this.peers = List.copyOf(peers);
  }

  /** How long a query waits for each peer. */
  public Duration getPeerTimeout() {
    return peerTimeout;
  }

  public void setPeerTimeout(Duration peerTimeout) {
    if (peerTimeout.isNegative() || peerTimeout.isZero()) {
      throw new IllegalArgumentException(PREFIX + ".peer-timeout must be positive, was " + peerTimeout);
    }
    this.peerTimeout = peerTimeout;
  }

  /** A file whose first line is the read token presented to the peers; null: none. */
  public String getPeerTokenFile() {
    return peerTokenFile;
  }

  public void setPeerTokenFile(String peerTokenFile) {
    this.peerTokenFile = peerTokenFile == null || peerTokenFile.isBlank() ? null : peerTokenFile;
  }

  /** A PEM CA bundle the peers' certificates are checked by (https peers); empty: the JVM's. */
  public String getPeerCaFile() {
    return peerCaFile;
  }

  public void setPeerCaFile(String peerCaFile) {
    this.peerCaFile = peerCaFile == null ? "" : peerCaFile;
  }
}
