package dev.spanprof.metrics;

import dev.spanprof.ingest.kafka.KafkaListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Singleton;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The Kafka ingest's meters (contract.md, "Kafka"): spanprof_kafka_invalid_records_total,
 * spanprof_kafka_replayed_spans_total, spanprof_kafka_window_rebuilt_spans_total,
 * spanprof_kafka_handed_over_spans_total, and
 * spanprof_kafka_lag_records{partition} for each partition this consumer owns.
 */
@Singleton
final class KafkaMeters implements KafkaListener {

  private final MeterRegistry registry;
  private final Counter invalid;
  private final Counter replayed;
  private final Counter rebuilt;
  private final Counter handedOver;
  private final Map<Integer, Lag> lags = new ConcurrentHashMap<>();

  KafkaMeters(MeterRegistry registry) {
    this.registry = registry;
    this.invalid = Counter.builder("spanprof.kafka.invalid.records")
        .description("Kafka records that could not be decoded, skipped")
        .register(registry);
    this.replayed = Counter.builder("spanprof.kafka.replayed.spans")
        .description("Spans forwarded again: read again after their partition changed owner, "
            + "their earlier owner had forwarded them")
        .register(registry);
    this.rebuilt = Counter.builder("spanprof.kafka.window.rebuilt.spans")
        .description("Spans read again from before the committed offset to rebuild the windows "
            + "(analysed, not forwarded)")
        .register(registry);
    this.handedOver = Counter.builder("spanprof.kafka.handed.over.spans")
        .description("Spans given up with their partition before their trace was analysed "
            + "here: the partition's next owner reads them again")
        .register(registry);
  }

  @Override
  public void onHandedOver(int spans) {
    handedOver.increment(spans);
  }

  @Override
  public void onInvalidRecord() {
    invalid.increment();
  }

  @Override
  public void onReplayed(int spans) {
    replayed.increment(spans);
  }

  @Override
  public void onWindowRebuilt(int spans) {
    rebuilt.increment(spans);
  }

  @Override
  public void onLag(int partition, long records) {
    lags.computeIfAbsent(partition, this::lag).records.set(records);
  }

  @Override
  public void onUnassigned(int partition) {
    Lag lag = lags.remove(partition);
    if (lag != null) {
      registry.remove(lag.gauge);
    }
  }

  private Lag lag(int partition) {
    AtomicLong records = new AtomicLong();
    Gauge gauge = Gauge.builder("spanprof.kafka.lag.records", records, AtomicLong::get)
        .description("Records of the partition not yet read by this consumer")
        .tag("partition", Integer.toString(partition))
        .register(registry);
    return new Lag(records, gauge);
  }

  private record Lag(AtomicLong records, Gauge gauge) {}
}
