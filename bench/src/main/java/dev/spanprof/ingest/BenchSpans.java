package dev.spanprof.ingest;

import dev.spanprof.analysis.SpanRecord;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.util.List;

/** Span records for the benchmarks, through the service's own mapper. */
public final class BenchSpans {

  private BenchSpans() {}

  public static List<SpanRecord> map(ExportTraceServiceRequest request) {
    return new OtlpTraceMapper(new StringInterner(100_000)).map(request).spans();
  }
}
