package dev.spanprof.ingest;

import dev.spanprof.config.IngestConfiguration;
import dev.spanprof.otlp.InvalidOtlpException;
import dev.spanprof.span.SpanMapping;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.store.SpanStore;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.util.List;
import java.util.function.Function;

/**
 * Span records for the benchmarks, through the service's own mapper. One interner and one store
 * for all, as the service has: the interner shares each name among the spans of every request,
 * so comparing two spans' names usually ends at identity, as it does in the service.
 */
public final class BenchSpans {

  private static final StringInterner INTERNER = new StringInterner(100_000);
  private static final SpanStore STORE =
      SpanStore.ofSize(IngestConfiguration.DEFAULT_SPAN_STORE_SIZE);
  private static final OtlpTraceMapper MAPPER =
      new OtlpTraceMapper(INTERNER, STORE, SpanMapping.defaults());

  private BenchSpans() {}

  /**
   * The ingest walk of encoded request bodies, as the service does it, with a mapper of its own
   * placing the spans in {@code store}; each span holds its bytes until the caller releases it.
   */
  public static Function<byte[], List<SpanRecord>> walk(SpanStore store) {
    OtlpTraceMapper mapper =
        new OtlpTraceMapper(new StringInterner(100_000), store, SpanMapping.defaults());
    return body -> {
      try {
        MappedRequest mapped = mapper.map(body);
        mapped.writer().close();
        return mapped.spans();
      } catch (InvalidOtlpException e) {
        throw new IllegalArgumentException("the benchmark's request is not OTLP", e);
      }
    };
  }

  /**
   * The request's spans, held for good: their bytes are in the store's slabs, as in the service.
   * Mapped at ingest by a default mapping of their own, which an analysis with another mapping
   * does again.
   */
  public static List<SpanRecord> map(ExportTraceServiceRequest request) {
    return map(MAPPER, request);
  }

  /** As {@link #map(ExportTraceServiceRequest)}, mapped at ingest by {@code mapping}. */
  public static List<SpanRecord> map(ExportTraceServiceRequest request, SpanMapping mapping) {
    return map(new OtlpTraceMapper(INTERNER, STORE, mapping), request);
  }

  private static List<SpanRecord> map(OtlpTraceMapper mapper, ExportTraceServiceRequest request) {
    MappedRequest mapped = mapper.map(request);
    mapped.writer().close();
    return mapped.spans();
  }
}
