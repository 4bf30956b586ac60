package dev.spanprof.ingest;

import dev.spanprof.analysis.SpanRecord;
import dev.spanprof.analysis.SpanStore;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.util.List;

/** Span records from OTLP/JSON, through the service's own decoder and mapper. */
public final class OtlpTestSpans {

  private OtlpTestSpans() {}

  /** The request of an OTLP/JSON body, through the service's own decoder. */
  public static ExportTraceServiceRequest decodeJson(byte[] otlpJson) {
    try {
      return new OtlpJson().decode(otlpJson);
    } catch (InvalidOtlpException e) {
      throw new IllegalArgumentException(e);
    }
  }

  public static List<SpanRecord> fromJson(byte[] otlpJson) {
    try {
      MappedRequest mapped = new OtlpTraceMapper(new StringInterner(1000), SpanStore.ofSize(0))
          .map(new OtlpJson().decode(otlpJson));
      if (mapped.rejectedSpans() > 0) {
        throw new IllegalArgumentException(mapped.problems());
      }
      return mapped.spans();
    } catch (InvalidOtlpException e) {
      throw new IllegalArgumentException(e);
    }
  }
}
