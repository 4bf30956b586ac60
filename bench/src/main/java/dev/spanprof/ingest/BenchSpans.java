package dev.spanprof.ingest;

import dev.spanprof.analysis.SpanRecord;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.util.List;

/**
 * Span records for the benchmarks, through the service's own mapper. One mapper for all, as the
 * service has: its interner shares each name among the spans of every request, so comparing two
 * spans' names usually ends at identity, as it does in the service.
 */
public final class BenchSpans {

  private static final OtlpTraceMapper MAPPER = new OtlpTraceMapper(new StringInterner(100_000));

  private BenchSpans() {}

  public static List<SpanRecord> map(ExportTraceServiceRequest request) {
    return MAPPER.map(request).spans();
  }
}
