package dev.spanprof.ingest;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.spanprof.otlp.InvalidOtlpException;
import dev.spanprof.otlp.WireReader;
import dev.spanprof.span.Attributes;
import dev.spanprof.span.SpanKind;
import dev.spanprof.span.SpanMapping;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.SpanResource;
import dev.spanprof.span.SpanScope;
import dev.spanprof.span.SpanStatus;
import dev.spanprof.span.store.SpanStore;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;

/**
 * The one place where OTLP trace requests become {@link SpanRecord}s: one walk over the protobuf
 * encoding of an {@code ExportTraceServiceRequest}, in place.
 *
 * <p>Each span keeps a copy of its slice of the body in a {@link SpanStore} slab, the very bytes
 * the client sent, for forwarding; its ids, name, kind, status and times are read from it; its
 * attributes are checked, and in the same walk found for the {@link SpanMapping}, whose outcome
 * the record keeps, not the attributes: anything else that asks decodes them again from the
 * span's bytes ({@link OtlpAttributes}). So a span waiting for its trace holds little more than
 * its encoding, and no message tree is built to be thrown away.
 * Resources and scopes are decoded once per block and shared by its spans.
 *
 * <p>Invalid spans are refused one by one (the OTLP partial-success model): a trace id that is
 * not 16 bytes or is all zero, a span id that is not 8 bytes or is all zero, a parent span id that
 * is neither empty nor 8 bytes. Everything else is kept, including spans that end before they
 * start (flagged, analysed as zero-length). A body that is not valid protobuf at all is refused
 * whole ({@link InvalidOtlpException}). Fields unknown to this version of OTLP are skipped (and
 * forwarded, being in the span's bytes); a field repeated where one is expected counts its last
 * occurrence, as protobuf's parser does. Names and keys are interned.
 */
final class OtlpTraceMapper {

  /** How many problems are spelled out in a response before the rest are only counted. */
  private static final int MAX_REPORTED_PROBLEMS = 5;

  private static final String SERVICE_NAME = "service.name";

  private static final int RESOURCE_SPANS = lengthDelimited(ExportTraceServiceRequest.RESOURCE_SPANS_FIELD_NUMBER);
  // ResourceSpans and ScopeSpans share one layout: a header (the resource, the scope), repeated
  // children (scope spans, spans) and a schema URL, under the same field numbers (a test checks).
  private static final int BLOCK_HEADER = lengthDelimited(ResourceSpans.RESOURCE_FIELD_NUMBER);
  private static final int BLOCK_CHILD = lengthDelimited(ResourceSpans.SCOPE_SPANS_FIELD_NUMBER);
  private static final int BLOCK_SCHEMA_URL = lengthDelimited(ResourceSpans.SCHEMA_URL_FIELD_NUMBER);
  private static final int SCOPE_NAME = lengthDelimited(InstrumentationScope.NAME_FIELD_NUMBER);
  private static final int SCOPE_VERSION = lengthDelimited(InstrumentationScope.VERSION_FIELD_NUMBER);
  private static final int SCOPE_ATTRIBUTES = lengthDelimited(InstrumentationScope.ATTRIBUTES_FIELD_NUMBER);
  private static final int TRACE_ID = lengthDelimited(Span.TRACE_ID_FIELD_NUMBER);
  private static final int SPAN_ID = lengthDelimited(Span.SPAN_ID_FIELD_NUMBER);
  private static final int PARENT_SPAN_ID = lengthDelimited(Span.PARENT_SPAN_ID_FIELD_NUMBER);
  private static final int NAME = lengthDelimited(Span.NAME_FIELD_NUMBER);
  private static final int KIND = OtlpAttributes.tag(Span.KIND_FIELD_NUMBER, WireReader.VARINT);
  private static final int START = OtlpAttributes.tag(Span.START_TIME_UNIX_NANO_FIELD_NUMBER, WireReader.FIXED64);
  private static final int END = OtlpAttributes.tag(Span.END_TIME_UNIX_NANO_FIELD_NUMBER, WireReader.FIXED64);
  private static final int STATUS = lengthDelimited(Span.STATUS_FIELD_NUMBER);
  private static final int STATUS_CODE = OtlpAttributes.tag(Status.CODE_FIELD_NUMBER, WireReader.VARINT);
  private static final int STATUS_MESSAGE = lengthDelimited(Status.MESSAGE_FIELD_NUMBER);

  private final StringInterner interner;
  private final OtlpAttributes attributes;
  private final SpanStore store;
  private final SpanMapping mapping;

  /**
   * @param mapping what each span is mapped by as it is read (its resource id, pool, state): its
   *     bytes are in the cache then, and the analysis, seconds later, finds the outcome on the
   *     record rather than reading them again from memory
   */
  OtlpTraceMapper(StringInterner interner, SpanStore store, SpanMapping mapping) {
    this.interner = interner;
    this.attributes = new OtlpAttributes(interner);
    this.store = store;
    this.mapping = mapping;
  }

  /** Maps a request that arrived as a message (OTLP/JSON): through its protobuf encoding. */
  MappedRequest map(ExportTraceServiceRequest request) {
    try {
      return map(request.toByteArray());
    } catch (InvalidOtlpException e) {
      throw new IllegalStateException("protobuf's own encoding of a message does not decode", e);
    }
  }

  /** Maps a protobuf-encoded request. */
  MappedRequest map(byte[] body) throws InvalidOtlpException {
    return map(body, body.length);
  }

  /**
   * Maps a protobuf-encoded request in {@code body[0, bodyLength)}. Every record, resource and
   * scope holds copies of what it keeps, so the array can be used again afterwards: each span's
   * bytes are placed in the {@link SpanStore}, with a hold the span's holder releases.
   */
  MappedRequest map(byte[] body, int bodyLength) throws InvalidOtlpException {
    SpanStore.Writer writer = store.writer();
    Walk walk = new Walk(body, writer);
    try {
      WireReader request = new WireReader(body, 0, bodyLength);
      for (int r = 0; request.hasMore(); ) {
        int tag = request.readTag();
        if (tag == RESOURCE_SPANS) {
          int length = request.readLength();
          walk.resourceSpans(r++, request.fieldOffset(), length);
        } else {
          request.skip(tag);
        }
      }
    } catch (InvalidOtlpException | RuntimeException e) {
      SpanRecord.releaseBytes(walk.spans);
      writer.close();
      throw e;
    }
    return new MappedRequest(walk.spans, walk.problems.rejected, walk.endBeforeStart,
        walk.problems.describe(), writer);
  }

  private static int lengthDelimited(int fieldNumber) {
    return OtlpAttributes.tag(fieldNumber, WireReader.LENGTH_DELIMITED);
  }

  /** One request's walk: its spans so far and what was wrong with them. */
  private final class Walk {
    private final byte[] body;
    private final SpanStore.Writer writer;
    private final ArrayList<SpanRecord> spans = new ArrayList<>();
    private final Problems problems = new Problems();
    private final SpanRecord.Builder builder = SpanRecord.builder();
    /** The last span's attributes, read in place for the mapping; the next may read through it. */
    private Attributes attributesView = Attributes.empty();
    private int endBeforeStart;
    /** Where the current span's status message is in {@link #body}: its offset, -1 for none. */
    private int statusMessageOffset;
    private int statusMessageLength;

    Walk(byte[] body, SpanStore.Writer writer) {
      this.body = body;
      this.writer = writer;
      builder.setMapper(mapping.mapper());
    }

    void resourceSpans(int r, int offset, int length) throws InvalidOtlpException {
      Block block = new Block(offset, length);
      byte[] encoded = block.header.concatenated(body);
      Attributes resourceAttributes =
          attributes.decode(encoded, 0, encoded.length, OtlpAttributes.LIST_ENTRIES);
      Object serviceName = resourceAttributes.get(SERVICE_NAME);
      SpanResource resource = new SpanResource(
          serviceName == null ? SpanResource.UNKNOWN_SERVICE : interner.intern(serviceName.toString()),
          resourceAttributes, block.schemaUrl, encoded);
      for (int s = 0; s < block.children.size; s++) {
        scopeSpans(r, s, block.children.offset(s), block.children.length(s), resource);
      }
    }

    private void scopeSpans(int r, int s, int offset, int length, SpanResource resource)
        throws InvalidOtlpException {
      Block block = new Block(offset, length);
      SpanScope scope = scope(block.header.concatenated(body), block.schemaUrl);
      // Room for the scope's spans at once, rather than the list's copies as it grows.
      spans.ensureCapacity(spans.size() + block.children.size);
      for (int i = 0; i < block.children.size; i++) {
        span(r, s, i, block.children.offset(i), block.children.length(i), resource, scope);
      }
    }

    /**
     * A ResourceSpans or ScopeSpans located: its header may follow its children on the wire, so
     * both are found before either is mapped.
     */
    private final class Block {
      final Occurrences header = new Occurrences();
      final Occurrences children = new Occurrences();
      String schemaUrl = "";

      Block(int offset, int length) throws InvalidOtlpException {
        WireReader in = new WireReader(body, offset, length);
        while (in.hasMore()) {
          int tag = in.readTag();
          if (tag == BLOCK_HEADER) {
            header.add(in.readLength(), in.fieldOffset());
          } else if (tag == BLOCK_CHILD) {
            children.add(in.readLength(), in.fieldOffset());
          } else if (tag == BLOCK_SCHEMA_URL) {
            int n = in.readLength();
            schemaUrl = new String(body, in.fieldOffset(), n, UTF_8);
          } else {
            in.skip(tag);
          }
        }
      }
    }

    private SpanScope scope(byte[] encoded, String schemaUrl) throws InvalidOtlpException {
      String name = "";
      String version = "";
      WireReader in = new WireReader(encoded, 0, encoded.length);
      while (in.hasMore()) {
        int tag = in.readTag();
        if (tag == SCOPE_NAME) {
          int n = in.readLength();
          name = interner.intern(encoded, in.fieldOffset(), n);
        } else if (tag == SCOPE_VERSION) {
          int n = in.readLength();
          version = interner.intern(encoded, in.fieldOffset(), n);
        } else {
          in.skip(tag);
        }
      }
      return new SpanScope(name, version,
          attributes.decode(encoded, 0, encoded.length, SCOPE_ATTRIBUTES), schemaUrl, encoded);
    }

    private void span(int r, int s, int i, int offset, int length, SpanResource resource,
        SpanScope scope) throws InvalidOtlpException {
      int traceIdOffset = -1;
      int traceIdLength = 0;
      int spanIdOffset = -1;
      int spanIdLength = 0;
      int parentOffset = -1;
      int parentLength = 0;
      String name = "";
      int kind = 0;
      int statusCode = 0;
      statusMessageOffset = -1;
      long start = 0;
      long end = 0;
      OtlpAttributes.EncodedEntries spanAttributes = attributes.spanEntries();
      WireReader in = new WireReader(body, offset, length);
      while (in.hasMore()) {
        int tag = in.readTag();
        if (tag == TRACE_ID) {
          traceIdLength = in.readLength();
          traceIdOffset = in.fieldOffset();
        } else if (tag == SPAN_ID) {
          spanIdLength = in.readLength();
          spanIdOffset = in.fieldOffset();
        } else if (tag == PARENT_SPAN_ID) {
          parentLength = in.readLength();
          parentOffset = in.fieldOffset();
        } else if (tag == NAME) {
          int n = in.readLength();
          name = interner.intern(body, in.fieldOffset(), n);
        } else if (tag == KIND) {
          kind = (int) in.readVarint();
        } else if (tag == START) {
          start = in.readFixed64();
        } else if (tag == END) {
          end = in.readFixed64();
        } else if (tag == OtlpAttributes.SPAN_ATTRIBUTES) {
          int n = in.readLength();
          attributes.check(body, in.fieldOffset(), n, spanAttributes);
        } else if (tag == STATUS) {
          int n = in.readLength();
          statusCode = statusCode(in.fieldOffset(), n, statusCode);
        } else {
          in.skip(tag);
        }
      }
      String invalid = invalid(traceIdOffset, traceIdLength, spanIdOffset, spanIdLength, parentLength);
      if (invalid != null) {
        problems.reject(r, s, i, invalid);
        return;
      }
      if (end < start) { // unsigned in OTLP, but no clock reads 2^63 ns (the year 2262)
        endBeforeStart++;
        problems.warn(r, s, i, "endTimeUnixNano is before startTimeUnixNano; "
            + "kept and analysed as zero-length at its start");
      }
      int placed = writer.place(body, offset, length);
      if (placed >= 0) {
        builder.setEncoded(writer.slab(), placed, length);
      } else {
        builder.setEncoded(Arrays.copyOfRange(body, offset, offset + length));
      }
      attributesView = attributes.checkedView(body, spanAttributes, attributesView);
      spans.add(builder
          .setTraceId(longAt(traceIdOffset), longAt(traceIdOffset + 8))
          .setSpanId(longAt(spanIdOffset))
          .setParentSpanId(parentLength == 0 ? 0 : longAt(parentOffset))
          .setName(name)
          .setKind(SpanKind.fromOtlp(kind))
          .setStatus(SpanStatus.fromOtlp(statusCode))
          // Kept for errors only, what the trace page shows; other spans' messages stay in
          // their bytes, unread.
          .setStatusMessage(SpanStatus.fromOtlp(statusCode) == SpanStatus.ERROR
              && statusMessageOffset >= 0
              ? new String(body, statusMessageOffset, statusMessageLength, StandardCharsets.UTF_8)
              : "")
          .setStartNanos(start)
          .setEndNanos(end)
          // Decoded later from the span's own bytes when asked for; read from the request's
          // now, for the mapping only.
          .setAttributes(attributes, attributesView)
          .setResource(resource)
          .setScope(scope)
          .build());
    }

    /**
     * The code of a Status message, its message's place noted; occurrences merge, so one without
     * a code (or a message) keeps the last.
     */
    private int statusCode(int offset, int length, int code) throws InvalidOtlpException {
      int result = code;
      WireReader in = new WireReader(body, offset, length);
      while (in.hasMore()) {
        int tag = in.readTag();
        if (tag == STATUS_CODE) {
          result = (int) in.readVarint();
        } else if (tag == STATUS_MESSAGE) {
          statusMessageLength = in.readLength();
          statusMessageOffset = in.fieldOffset();
        } else {
          in.skip(tag);
        }
      }
      return result;
    }

    private String invalid(int traceIdOffset, int traceIdLength, int spanIdOffset,
        int spanIdLength, int parentLength) {
      if (traceIdLength != 16) {
        return "traceId has " + traceIdLength + " bytes, expected 16";
      }
      if ((longAt(traceIdOffset) | longAt(traceIdOffset + 8)) == 0) {
        return "traceId is all zeros";
      }
      if (spanIdLength != 8) {
        return "spanId has " + spanIdLength + " bytes, expected 8";
      }
      if (longAt(spanIdOffset) == 0) {
        return "spanId is all zeros";
      }
      if (parentLength != 0 && parentLength != 8) {
        return "parentSpanId has " + parentLength + " bytes, expected 0 or 8";
      }
      return null;
    }

    private long longAt(int offset) {
      long value = 0;
      for (int k = 0; k < 8; k++) {
        value = (value << 8) | (body[offset + k] & 0xFF);
      }
      return value;
    }
  }

  /**
   * Where the occurrences of one field lie in the body. A message field sent more than once is,
   * by protobuf's rules, the merge of its occurrences: the concatenation of their encodings.
   */
  private static final class Occurrences {
    private int[] ranges = new int[8]; // offset, length, offset, length, ...
    private int size;

    void add(int length, int offset) {
      if (2 * size == ranges.length) {
        ranges = Arrays.copyOf(ranges, ranges.length * 2);
      }
      ranges[2 * size] = offset;
      ranges[2 * size + 1] = length;
      size++;
    }

    int offset(int index) {
      return ranges[2 * index];
    }

    int length(int index) {
      return ranges[2 * index + 1];
    }

    byte[] concatenated(byte[] body) {
      if (size == 1) {
        return Arrays.copyOfRange(body, offset(0), offset(0) + length(0));
      }
      ByteArrayOutputStream merged = new ByteArrayOutputStream();
      for (int k = 0; k < size; k++) {
        merged.write(body, offset(k), length(k));
      }
      return merged.toByteArray();
    }
  }

  /** Collects what was wrong with a request's spans into one message for the client. */
  private static final class Problems {
    private final StringBuilder text = new StringBuilder();
    private int reported;
    private int unreported;
    int rejected;

    void reject(int resource, int scope, int span, String why) {
      rejected++;
      add(resource, scope, span, "rejected: " + why);
    }

    void warn(int resource, int scope, int span, String why) {
      add(resource, scope, span, why);
    }

    private void add(int resource, int scope, int span, String why) {
      if (reported == MAX_REPORTED_PROBLEMS) {
        unreported++;
        return;
      }
      if (reported > 0) {
        text.append("; ");
      }
      text.append("resourceSpans[").append(resource)
          .append("].scopeSpans[").append(scope)
          .append("].spans[").append(span).append("] ").append(why);
      reported++;
    }

    String describe() {
      return unreported == 0 ? text.toString() : text + " (and " + unreported + " more)";
    }
  }
}
