package dev.spanprof.metrics;

import dev.spanprof.ingest.IngestListener;
import dev.spanprof.ingest.MemoryGuard;
import dev.spanprof.ingest.Transport;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Singleton;
import java.util.EnumMap;
import java.util.Map;

/**
 * Ingest counters. For every transport: spanprof_received_spans_total counts spans accepted,
 * spanprof_refused_spans_total{reason} spans of decoded requests that were not, and
 * spanprof_rejected_requests_total{reason} requests turned away before their spans could be
 * counted. spanprof_end_before_start_spans_total counts accepted spans flagged for analysis;
 * spanprof_memory_limited is 1 while the {@link MemoryGuard} refuses.
 */
@Singleton
final class IngestMeters implements IngestListener {

  private final Map<Transport, Counter> received = new EnumMap<>(Transport.class);
  private final Map<Transport, Counter> endBeforeStart = new EnumMap<>(Transport.class);
  private final Map<Transport, Map<SpanRefusal, Counter>> refused = new EnumMap<>(Transport.class);
  private final Map<Transport, Map<RequestRejection, Counter>> rejected =
      new EnumMap<>(Transport.class);

  IngestMeters(MeterRegistry registry, MemoryGuard memory) {
    Gauge.builder("spanprof.memory.limited", memory, guard -> guard.isOver() ? 1 : 0)
        .description("1 while the heap after collection is over spanprof.memory.limit-percentage "
            + "and new spans are refused")
        .register(registry);
    for (Transport transport : Transport.values()) {
      received.put(transport, Counter.builder("spanprof.received.spans")
          .description("Spans accepted")
          .tag("transport", transport.label())
          .register(registry));
      endBeforeStart.put(transport, Counter.builder("spanprof.end.before.start.spans")
          .description("Accepted spans whose end is before their start (analysed as zero-length)")
          .tag("transport", transport.label())
          .register(registry));
      Map<SpanRefusal, Counter> byRefusal = new EnumMap<>(SpanRefusal.class);
      for (SpanRefusal reason : SpanRefusal.values()) {
        byRefusal.put(reason, Counter.builder("spanprof.refused.spans")
            .description("Spans refused (backpressure, invalid)")
            .tags("transport", transport.label(), "reason", reason.label())
            .register(registry));
      }
      refused.put(transport, byRefusal);
      Map<RequestRejection, Counter> byRejection = new EnumMap<>(RequestRejection.class);
      for (RequestRejection reason : RequestRejection.values()) {
        byRejection.put(reason, Counter.builder("spanprof.rejected.requests")
            .description("Export requests rejected before their spans could be counted")
            .tags("transport", transport.label(), "reason", reason.label())
            .register(registry));
      }
      rejected.put(transport, byRejection);
    }
  }

  @Override
  public void onAccepted(Transport transport, int spans) {
    received.get(transport).increment(spans);
  }

  @Override
  public void onRefused(Transport transport, SpanRefusal reason, int spans) {
    refused.get(transport).get(reason).increment(spans);
  }

  @Override
  public void onEndBeforeStart(Transport transport, int spans) {
    endBeforeStart.get(transport).increment(spans);
  }

  @Override
  public void onRequestRejected(Transport transport, RequestRejection reason) {
    rejected.get(transport).get(reason).increment();
  }
}
