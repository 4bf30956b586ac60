package dev.spanprof.ingest;

import dev.spanprof.analysis.SpanRecord;
import java.util.List;

/** Span records from OTLP/JSON, through the service's own decoder and mapper. */
public final class OtlpTestSpans {

  private OtlpTestSpans() {}

  public static List<SpanRecord> fromJson(byte[] otlpJson) {
    try {
      MappedRequest mapped = new OtlpTraceMapper(new StringInterner(1000))
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
