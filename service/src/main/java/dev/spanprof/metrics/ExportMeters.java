package dev.spanprof.metrics;

import dev.spanprof.config.ExportConfiguration;
import dev.spanprof.export.ExportListener;
import dev.spanprof.export.Forwarder;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micronaut.context.BeanProvider;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Forwarding: spanprof_exported_spans_total, spanprof_export_failed_spans_total{reason},
 * spanprof_export_retries_total{reason}, spanprof_export_repaired_spans_total,
 * spanprof_export_queue_spans (waiting or in flight) and its
 * bound spanprof_export_queue_spans_limit, and
 * spanprof_export_latency_seconds (one request to the next hop). Of the spans handed to
 * forwarding, exported + failed + queued is all of them.
 */
@Singleton
final class ExportMeters implements ExportListener {

  private final MeterRegistry registry;
  private final Counter exported;
  private final Counter repaired;
  private final Timer latency;
  private final Map<String, Counter> failed = new ConcurrentHashMap<>();
  private final Map<String, Counter> retries = new ConcurrentHashMap<>();

  ExportMeters(MeterRegistry registry, BeanProvider<Forwarder> forwarder,
      ExportConfiguration configuration) {
    this.registry = registry;
    this.exported = Counter.builder("spanprof.exported.spans")
        .description("Spans forwarded to the next hop")
        .register(registry);
    this.repaired = Counter.builder("spanprof.export.repaired.spans")
        .description("Spans forwarded with invalid UTF-8 replaced, after the next hop refused "
            + "them as sent (also counted as exported)")
        .register(registry);
    this.latency = Timer.builder("spanprof.export.latency")
        .description("Time of one export request to the next hop")
        .register(registry);
    // The reasons every deployment can meet are there at zero from the start, so a rate over them
    // works before the first failure; and registered now, they still count a failure met while
    // the shutdown drain runs after the registry has been closed.
    for (String reason : List.of("queue_full", "rejected", "retries_exhausted", "shutdown", "tls")) {
      failedCounter(reason);
    }
    Gauge.builder("spanprof.export.queue.spans", forwarder, f -> f.get().queuedSpans())
        .description("Spans waiting to be forwarded or in flight")
        .register(registry);
    Gauge.builder("spanprof.export.queue.spans.limit", configuration::getQueueSpans)
        .description("Most spans that may wait to be forwarded (spanprof.export.queue-spans)")
        .register(registry);
  }

  @Override
  public void onExported(long spans) {
    exported.increment(spans);
  }

  @Override
  public void onFailed(String reason, long spans) {
    failedCounter(reason).increment(spans);
  }

  private Counter failedCounter(String reason) {
    return failed.computeIfAbsent(reason, unused -> Counter.builder("spanprof.export.failed.spans")
        .description("Spans given up by forwarding, by reason")
        .tag("reason", reason)
        .register(registry));
  }

  @Override
  public void onRetry(String reason) {
    retries.computeIfAbsent(reason, unused -> Counter.builder("spanprof.export.retries")
            .description("Export requests retried, by the failure that caused it")
            .tag("reason", reason)
            .register(registry))
        .increment();
  }

  @Override
  public void onRepaired(long spans) {
    repaired.increment(spans);
  }

  @Override
  public void onRequest(Duration duration) {
    latency.record(duration);
  }
}
