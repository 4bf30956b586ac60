package dev.spanprof.metrics;

import dev.spanprof.assembly.TraceAssembler;
import dev.spanprof.assembly.TraceWorkers;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Context;

/**
 * spanprof_buffered_spans and spanprof_queued_spans: what is held in memory right now.
 *
 * <p>Registered from the constructor rather than as a {@code MeterBinder}: binders are applied
 * while the registry is created, and the assembler needs the registry (through its listener) first.
 */
@Context
final class AssemblyGauges {

  AssemblyGauges(MeterRegistry registry, TraceAssembler assembler, TraceWorkers workers) {
    Gauge.builder("spanprof.buffered.spans", assembler, TraceAssembler::bufferedSpans)
        .description("Spans waiting for their trace to complete")
        .register(registry);
    Gauge.builder("spanprof.queued.spans", workers, TraceWorkers::queuedSpans)
        .description("Spans of completed traces waiting for or in analysis")
        .register(registry);
  }
}
