package dev.spanprof.ingest;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.util.Arrays;

/**
 * The encoding each span of a request is kept in for forwarding, by the span's index in the
 * request (counting every span, valid or not, in the order protobuf parses them).
 *
 * <p>A protobuf body already holds every span's encoding: copying that slice out costs a fraction
 * of re-encoding the parsed span, and hands the next hop the very bytes the client sent. Only a
 * request that arrived as JSON has to be encoded.
 */
final class SpanEncodings {

  private static final int REQUEST_RESOURCE_SPANS =
      messageTag(ExportTraceServiceRequest.RESOURCE_SPANS_FIELD_NUMBER);
  private static final int RESOURCE_SPANS_SCOPE_SPANS = messageTag(ResourceSpans.SCOPE_SPANS_FIELD_NUMBER);
  private static final int SCOPE_SPANS_SPANS = messageTag(ScopeSpans.SPANS_FIELD_NUMBER);

  private static final SpanEncodings REENCODED = new SpanEncodings(null, null);

  private final byte[] body; // null: encode each span
  private final int[] positions; // offset and length of each span in body

  private SpanEncodings(byte[] body, int[] positions) {
    this.body = body;
    this.positions = positions;
  }

  byte[] of(int index, Span span) {
    if (body == null) {
      return span.toByteArray();
    }
    int offset = positions[2 * index];
    return Arrays.copyOfRange(body, offset, offset + positions[2 * index + 1]);
  }

  /** For a request that did not arrive as protobuf. */
  static SpanEncodings reencoded() {
    return REENCODED;
  }

  /**
   * For a request parsed from {@code body}: slices of it, located by one walk over the wire
   * format that skips over every span. Falls back to re-encoding should the walk not find the
   * {@code spanCount} spans the parser did.
   */
  static SpanEncodings sliced(byte[] body, int spanCount) {
    int[] positions = new int[2 * spanCount];
    try {
      int located = locate(body, positions);
      return located == spanCount ? new SpanEncodings(body, positions) : REENCODED;
    } catch (IOException | IndexOutOfBoundsException e) {
      return REENCODED;
    }
  }

  private static int locate(byte[] body, int[] positions) throws IOException {
    CodedInputStream in = CodedInputStream.newInstance(body);
    int located = 0;
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      if (tag != REQUEST_RESOURCE_SPANS) {
        in.skipField(tag);
        continue;
      }
      int resourceLimit = in.pushLimit(in.readRawVarint32());
      for (int resourceTag = in.readTag(); resourceTag != 0; resourceTag = in.readTag()) {
        if (resourceTag != RESOURCE_SPANS_SCOPE_SPANS) {
          in.skipField(resourceTag);
          continue;
        }
        int scopeLimit = in.pushLimit(in.readRawVarint32());
        for (int scopeTag = in.readTag(); scopeTag != 0; scopeTag = in.readTag()) {
          if (scopeTag != SCOPE_SPANS_SPANS) {
            in.skipField(scopeTag);
            continue;
          }
          int length = in.readRawVarint32();
          positions[2 * located] = in.getTotalBytesRead();
          positions[2 * located + 1] = length;
          located++;
          in.skipRawBytes(length);
        }
        in.popLimit(scopeLimit);
      }
      in.popLimit(resourceLimit);
    }
    return located;
  }

  /** The tag of an embedded message field, as {@link CodedInputStream#readTag} returns it. */
  private static int messageTag(int fieldNumber) {
    return fieldNumber << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED;
  }
}
