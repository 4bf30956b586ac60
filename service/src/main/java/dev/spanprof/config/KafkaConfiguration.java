package dev.spanprof.config;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.convert.format.MapFormat;
import io.micronaut.core.convert.format.MapFormat.MapTransformation;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * {@code spanprof.kafka.*}: the optional second ingest, a consumer group reading OTLP spans from
 * a Kafka topic as the Collector's Kafka exporter writes them (contract.md, "Kafka").
 */
@ConfigurationProperties(KafkaConfiguration.PREFIX)
public final class KafkaConfiguration {

  public static final String PREFIX = "spanprof.kafka";

  /** The Kafka exporter's encodings spanprof reads. */
  public enum Encoding { OTLP_PROTO, OTLP_JSON }

  private String bootstrapServers = "";
  private String topic = "otlp_spans";
  private Encoding encoding = Encoding.OTLP_PROTO;
  private String groupId = "spanprof";
  private Map<String, String> properties = Map.of();
  private Duration commitInterval = Duration.ofSeconds(1);
  private Duration handoverTimeout = Duration.ofSeconds(30);

  /** The brokers; empty: no Kafka consumer. */
  public String getBootstrapServers() {
    return bootstrapServers;
  }

  public void setBootstrapServers(String bootstrapServers) {
    this.bootstrapServers = bootstrapServers == null ? "" : bootstrapServers.trim();
  }

  public boolean enabled() {
    return !bootstrapServers.isEmpty();
  }

  public String getTopic() {
    return topic;
  }

  public void setTopic(String topic) {
    if (topic == null || topic.isBlank()) {
      throw new IllegalArgumentException(PREFIX + ".topic must not be empty");
    }
    this.topic = topic.trim();
  }

  public Encoding getEncoding() {
    return encoding;
  }

  /** {@code otlp_proto} or {@code otlp_json}, as the exporter's {@code encoding}. */
  public void setEncoding(String encoding) {
    try {
      this.encoding = Encoding.valueOf(encoding.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(PREFIX + ".encoding must be otlp_proto or otlp_json, was '"
          + encoding + "'", e);
    }
  }

  public String getGroupId() {
    return groupId;
  }

  public void setGroupId(String groupId) {
    if (groupId == null || groupId.isBlank()) {
      throw new IllegalArgumentException(PREFIX + ".group-id must not be empty");
    }
    this.groupId = groupId.trim();
  }

  /** Passed to the Kafka consumer as they are (security, SASL, TLS, tuning). */
  public Map<String, String> getProperties() {
    return properties;
  }

  public void setProperties(
      @MapFormat(transformation = MapTransformation.FLAT) Map<String, String> properties) {
    this.properties = Map.copyOf(properties);
  }

  /** How often the consumer commits what is done. */
  public Duration getCommitInterval() {
    return commitInterval;
  }

  public void setCommitInterval(Duration commitInterval) {
    if (commitInterval.isNegative() || commitInterval.isZero()) {
      throw new IllegalArgumentException(PREFIX + ".commit-interval must be positive");
    }
    this.commitInterval = commitInterval;
  }

  /**
   * How long a consumer giving up partitions (a rebalance, a shutdown) waits for the spans from
   * them whose analysis began to be forwarded before it commits; what is not forwarded by then
   * their next owner forwards again.
   */
  public Duration getHandoverTimeout() {
    return handoverTimeout;
  }

  public void setHandoverTimeout(Duration handoverTimeout) {
    if (handoverTimeout.isNegative()) {
      throw new IllegalArgumentException(PREFIX + ".handover-timeout must not be negative");
    }
    this.handoverTimeout = handoverTimeout;
  }
}
