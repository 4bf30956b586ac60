package dev.spanprof.metrics;

import dev.spanprof.config.SpoolConfiguration;
import dev.spanprof.spool.Spool;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Requires;

/**
 * The spool, when there is one: spanprof_spool_pending_spans (written, waiting on disk for room
 * in the pipeline), spanprof_spool_bytes and its bound spanprof_spool_limit_bytes, and
 * spanprof_spool_recovered_spans_total (found at start, forwarded again).
 */
@Context
@Requires(beans = Spool.class)
final class SpoolMeters {

  SpoolMeters(MeterRegistry registry, Spool spool, SpoolConfiguration configuration) {
    Gauge.builder("spanprof.spool.pending.spans", spool, Spool::pendingSpans)
        .description("Spans written to the spool and waiting there for room in the pipeline")
        .register(registry);
    Gauge.builder("spanprof.spool.bytes", spool, Spool::bytes)
        .description("Bytes of the spool's segments on disk")
        .baseUnit("bytes")
        .register(registry);
    Gauge.builder("spanprof.spool.limit.bytes", configuration::getMaxSize)
        .description("Most bytes the spool takes (spanprof.export.spool.max-size)")
        .baseUnit("bytes")
        .register(registry);
    FunctionCounter.builder("spanprof.spool.recovered.spans", spool, Spool::recoveredSpans)
        .description("Spans found in the spool at start, to be forwarded again")
        .register(registry);
  }
}
