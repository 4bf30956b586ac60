package dev.spanprof.metrics;

import dev.spanprof.stages.TailService;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Context;

/**
 * spanprof_tail_overflow_total{kind}: what the tail window's bounds left out, traces of roots
 * beyond {@code spanprof.tail.max-roots} ({@code kind="trace"}) and operations or states summed
 * under _overflow beyond {@code max-operations} ({@code kind="row"}). The tail itself has no
 * series: per (root, operation) it would multiply the cardinality; it is read through the API.
 */
@Context
final class TailMeters {

  TailMeters(MeterRegistry registry, TailService tail) {
    FunctionCounter.builder("spanprof.tail.overflow", tail, TailService::overflowTraces)
        .description("Traces or rows the tail window left out or folded (spanprof.tail.max-*)")
        .tag("kind", "trace")
        .register(registry);
    FunctionCounter.builder("spanprof.tail.overflow", tail, TailService::overflowRows)
        .description("Traces or rows the tail window left out or folded (spanprof.tail.max-*)")
        .tag("kind", "row")
        .register(registry);
  }
}
