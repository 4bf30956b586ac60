package dev.spanprof.ingest;

import dev.spanprof.otlp.InvalidOtlpException;
import dev.spanprof.otlp.OtlpJson;
import dev.spanprof.span.SpanMapping;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.store.SpanStore;
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

  /** The spans, mapped at ingest by a default mapping of their own (not an analyzer's). */
  public static List<SpanRecord> fromJson(byte[] otlpJson) {
    return fromJson(otlpJson, SpanMapping.defaults());
  }

  /** The spans, mapped at ingest by {@code mapping}, as the service's ingest maps them. */
  public static List<SpanRecord> fromJson(byte[] otlpJson, SpanMapping mapping) {
    try {
      MappedRequest mapped =
          new OtlpTraceMapper(new StringInterner(1000), SpanStore.ofSize(0), mapping)
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
