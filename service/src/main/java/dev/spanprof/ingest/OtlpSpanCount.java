package dev.spanprof.ingest;

import dev.spanprof.otlp.InvalidOtlpException;
import dev.spanprof.otlp.WireReader;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;

/**
 * Counts the spans of a protobuf-encoded {@code ExportTraceServiceRequest} without decoding them:
 * it reads the tags and lengths of the request, its ResourceSpans and their ScopeSpans, and steps
 * over everything else, the spans included. Ingest reads this much of a request it refuses because
 * the buffer is full, so that under overload a refusal costs a small part of a decode.
 */
final class OtlpSpanCount {

  private static final int RESOURCE_SPANS = lengthDelimited(
      ExportTraceServiceRequest.RESOURCE_SPANS_FIELD_NUMBER);
  private static final int SCOPE_SPANS = lengthDelimited(ResourceSpans.SCOPE_SPANS_FIELD_NUMBER);
  private static final int SPANS = lengthDelimited(ScopeSpans.SPANS_FIELD_NUMBER);

  private OtlpSpanCount() {}

  /**
   * The spans in {@code body[0, length)}.
   *
   * @throws InvalidOtlpException when the request's, a ResourceSpans' or a ScopeSpans' framing is
   *     malformed; the spans' own content is not looked at
   */
  static int of(byte[] body, int length) throws InvalidOtlpException {
    int spans = 0;
    WireReader request = new WireReader(body, 0, length);
    while (request.hasMore()) {
      int tag = request.readTag();
      if (tag != RESOURCE_SPANS) {
        request.skip(tag);
        continue;
      }
      int resourceLength = request.readLength();
      WireReader resource = new WireReader(body, request.fieldOffset(), resourceLength);
      while (resource.hasMore()) {
        int resourceTag = resource.readTag();
        if (resourceTag == SCOPE_SPANS) {
          int scopeLength = resource.readLength();
          spans += spansOf(body, resource.fieldOffset(), scopeLength);
        } else {
          resource.skip(resourceTag);
        }
      }
    }
    return spans;
  }

  /** The spans of the ScopeSpans in {@code body[offset, offset + length)}. */
  private static int spansOf(byte[] body, int offset, int length) throws InvalidOtlpException {
    int spans = 0;
    WireReader scope = new WireReader(body, offset, length);
    while (scope.hasMore()) {
      int tag = scope.readTag();
      scope.skip(tag);
      if (tag == SPANS) {
        spans++;
      }
    }
    return spans;
  }

  private static int lengthDelimited(int fieldNumber) {
    return OtlpAttributes.tag(fieldNumber, WireReader.LENGTH_DELIMITED);
  }
}
