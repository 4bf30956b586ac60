package dev.spanprof.metrics;

import dev.spanprof.config.IngestConfiguration;
import dev.spanprof.span.store.SpanStore;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Context;

/**
 * The span store's use of the heap (spanprof.ingest.span-store-size): bytes allocated in slabs,
 * bytes in use, the configured limit, and the byte ranges kept outside it. Overflows growing
 * while the store is at its limit say that the store is smaller than what the buffers hold, so
 * spans are again an array each on the collected heap.
 */
@Context
final class SpanStoreMeters {

  SpanStoreMeters(MeterRegistry registry, SpanStore store, IngestConfiguration configuration) {
    Gauge.builder("spanprof.span.store.allocated", store, SpanStore::allocatedBytes)
        .description("Bytes allocated in span-store slabs, in use or free")
        .baseUnit("bytes")
        .register(registry);
    Gauge.builder("spanprof.span.store.in.use", store, SpanStore::inUseBytes)
        .description("Bytes of span-store slabs holding spans' bytes or open for the next request")
        .baseUnit("bytes")
        .register(registry);
    Gauge.builder("spanprof.span.store.limit", configuration::getSpanStoreSize)
        .description("Most bytes the span store allocates (spanprof.ingest.span-store-size)")
        .baseUnit("bytes")
        .register(registry);
    FunctionCounter.builder("spanprof.span.store.overflow", store, SpanStore::overflows)
        .description("Spans' bytes and enriched attributes kept in arrays of their own: the store "
            + "was used up or they were larger than a quarter of a slab")
        .register(registry);
  }
}
