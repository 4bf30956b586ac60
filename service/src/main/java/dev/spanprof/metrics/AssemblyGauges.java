package dev.spanprof.metrics;

import dev.spanprof.assembly.TraceAssembler;
import dev.spanprof.assembly.TraceWorkers;
import dev.spanprof.config.AssemblyConfiguration;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Context;

/**
 * spanprof_buffered_spans and spanprof_queued_spans: what is held in memory right now; and
 * spanprof_buffered_spans_limit, the configured bound, so an alert can compare the two.
 *
 * <p>Registered from the constructor rather than as a {@code MeterBinder}: binders are applied
 * while the registry is created, and the assembler needs the registry (through its listener) first.
 */
@Context
final class AssemblyGauges {

  AssemblyGauges(MeterRegistry registry, TraceAssembler assembler, TraceWorkers workers,
      AssemblyConfiguration configuration) {
    Gauge.builder("spanprof.buffered.spans", assembler, TraceAssembler::bufferedSpans)
        .description("Spans waiting for their trace to complete")
        .register(registry);
    Gauge.builder("spanprof.buffered.spans.limit", configuration::getMaxBufferedSpans)
        .description("Most spans that may wait for their traces (spanprof.assembly.max-buffered-spans)")
        .register(registry);
    Gauge.builder("spanprof.queued.spans", workers, TraceWorkers::queuedSpans)
        .description("Spans of completed traces waiting for or in analysis")
        .register(registry);
  }
}
