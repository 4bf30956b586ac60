package dev.spanprof.export;

import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.config.ExportConfiguration.Mode;
import dev.spanprof.span.store.SpanStore;
import dev.spanprof.stages.DistributionService;
import dev.spanprof.stages.ProfileConsumer;
import jakarta.inject.Singleton;
import java.util.List;

/**
 * Enriched mode ({@code spanprof.export.mode=enriched}): every span of an analysed trace, with
 * spanprof's attributes added ({@link SpanEnricher}), handed to the {@link Forwarder}. A next hop
 * slower than the spans coming in holds the analysis back ({@link #hasRoomFor}), and with it
 * ingest, instead of the queue dropping analysed spans.
 */
@Singleton
public final class EnrichedForwarding implements ProfileConsumer {

  private final Forwarder forwarder;
  private final SpanEnricher enricher;

  EnrichedForwarding(Forwarder forwarder, DistributionService distributions, SpanStore store) {
    this.forwarder = forwarder;
    this.enricher = new SpanEnricher(
        span -> distributions.durationPercentile(span, span.durationNanos()), store);
  }

  @Override
  public void accept(CompletedTrace trace, TraceProfile profile, long arrivalNanos) {
    if (forwarder.forwards(Mode.ENRICHED)) {
      List<ExportEntry> entries = enricher.enrich(trace, profile);
      if (!entries.isEmpty()) {
        forwarder.enqueue(entries);
      }
    }
  }

  /**
   * Whether the queue has room for a trace of {@code traceSpans} and the {@code queuedSpans}
   * waiting for analysis before it.
   */
  @Override
  public boolean hasRoomFor(long queuedSpans, int traceSpans) {
    return !forwarder.forwards(Mode.ENRICHED) || forwarder.hasRoomFor(queuedSpans, traceSpans);
  }
}
