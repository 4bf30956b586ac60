package dev.spanprof.ingest;

import com.google.protobuf.ByteString;
import dev.spanprof.analysis.Attributes;
import dev.spanprof.analysis.SpanKind;
import dev.spanprof.analysis.SpanRecord;
import dev.spanprof.analysis.SpanResource;
import dev.spanprof.analysis.SpanScope;
import dev.spanprof.analysis.SpanStatus;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The one place where OTLP trace messages become {@link SpanRecord}s.
 *
 * <p>Invalid spans are refused one by one (the OTLP partial-success model): a trace id that is not
 * 16 bytes or is all zero, a span id that is not 8 bytes or is all zero, a parent span id that is
 * neither empty nor 8 bytes. Everything else is kept, including spans that end before they start
 * (flagged, analysed as zero-length). Names and keys are interned; each span keeps its encoding
 * for forwarding (see {@link SpanEncodings}).
 */
final class OtlpTraceMapper {

  /** How many problems are spelled out in a response before the rest are only counted. */
  private static final int MAX_REPORTED_PROBLEMS = 5;

  private static final String SERVICE_NAME = "service.name";

  private final StringInterner interner;

  OtlpTraceMapper(StringInterner interner) {
    this.interner = interner;
  }

  /** Maps a request that was not parsed from protobuf: its spans are encoded for forwarding. */
  MappedRequest map(ExportTraceServiceRequest request) {
    return map(request, countSpans(request), SpanEncodings.reencoded());
  }

  /** Maps a request parsed from {@code body}: each span keeps its slice of it for forwarding. */
  MappedRequest map(ExportTraceServiceRequest request, byte[] body) {
    int spanCount = countSpans(request);
    return map(request, spanCount, SpanEncodings.sliced(body, spanCount));
  }

  private MappedRequest map(
      ExportTraceServiceRequest request, int spanCount, SpanEncodings encodings) {
    List<SpanRecord> spans = new ArrayList<>(spanCount);
    Problems problems = new Problems();
    int endBeforeStart = 0;
    SpanRecord.Builder builder = SpanRecord.builder();
    int index = 0; // of the span in the whole request, valid or not
    for (int r = 0; r < request.getResourceSpansCount(); r++) {
      ResourceSpans resourceSpans = request.getResourceSpans(r);
      SpanResource resource = mapResource(resourceSpans);
      for (int s = 0; s < resourceSpans.getScopeSpansCount(); s++) {
        ScopeSpans scopeSpans = resourceSpans.getScopeSpans(s);
        SpanScope scope = mapScope(scopeSpans);
        for (int i = 0; i < scopeSpans.getSpansCount(); i++, index++) {
          Span span = scopeSpans.getSpans(i);
          String invalid = validate(span);
          if (invalid != null) {
            problems.reject(r, s, i, invalid);
            continue;
          }
          if (span.getEndTimeUnixNano() < span.getStartTimeUnixNano()) {
            endBeforeStart++;
            problems.warn(r, s, i, "endTimeUnixNano is before startTimeUnixNano; "
                + "kept and analysed as zero-length at its start");
          }
          spans.add(builder
              .setTraceId(longAt(span.getTraceId(), 0), longAt(span.getTraceId(), 8))
              .setSpanId(longAt(span.getSpanId(), 0))
              .setParentSpanId(span.getParentSpanId().isEmpty()
                  ? 0 : longAt(span.getParentSpanId(), 0))
              .setName(interner.intern(span.getName()))
              .setKind(SpanKind.fromOtlp(span.getKindValue()))
              .setStatus(SpanStatus.fromOtlp(span.getStatus().getCodeValue()))
              .setStartNanos(span.getStartTimeUnixNano())
              .setEndNanos(span.getEndTimeUnixNano())
              .setAttributes(attributes(span.getAttributesList()))
              .setResource(resource)
              .setScope(scope)
              .setEncoded(encodings.of(index, span))
              .build());
        }
      }
    }
    return new MappedRequest(spans, problems.rejected, endBeforeStart, problems.describe());
  }

  private static int countSpans(ExportTraceServiceRequest request) {
    int count = 0;
    for (ResourceSpans resourceSpans : request.getResourceSpansList()) {
      for (ScopeSpans scopeSpans : resourceSpans.getScopeSpansList()) {
        count += scopeSpans.getSpansCount();
      }
    }
    return count;
  }

  private static String validate(Span span) {
    ByteString traceId = span.getTraceId();
    if (traceId.size() != 16) {
      return "traceId has " + traceId.size() + " bytes, expected 16";
    }
    if ((longAt(traceId, 0) | longAt(traceId, 8)) == 0) {
      return "traceId is all zeros";
    }
    ByteString spanId = span.getSpanId();
    if (spanId.size() != 8) {
      return "spanId has " + spanId.size() + " bytes, expected 8";
    }
    if (longAt(spanId, 0) == 0) {
      return "spanId is all zeros";
    }
    int parentSize = span.getParentSpanId().size();
    if (parentSize != 0 && parentSize != 8) {
      return "parentSpanId has " + parentSize + " bytes, expected 0 or 8";
    }
    return null;
  }

  private SpanResource mapResource(ResourceSpans resourceSpans) {
    Attributes attributes = attributes(resourceSpans.getResource().getAttributesList());
    Object serviceName = attributes.get(SERVICE_NAME);
    return new SpanResource(
        serviceName == null ? SpanResource.UNKNOWN_SERVICE : interner.intern(serviceName.toString()),
        attributes,
        resourceSpans.getSchemaUrl(),
        resourceSpans.getResource().toByteArray());
  }

  private SpanScope mapScope(ScopeSpans scopeSpans) {
    var scope = scopeSpans.getScope();
    return new SpanScope(
        interner.intern(scope.getName()),
        interner.intern(scope.getVersion()),
        attributes(scope.getAttributesList()),
        scopeSpans.getSchemaUrl(),
        scope.toByteArray());
  }

  private Attributes attributes(List<KeyValue> keyValues) {
    int size = keyValues.size();
    if (size == 0) {
      return Attributes.empty();
    }
    String[] keys = new String[size];
    Object[] values = new Object[size];
    int kept = 0;
    for (KeyValue keyValue : keyValues) {
      Object value = value(keyValue.getValue());
      if (value != null) { // an empty AnyValue stands for null: the same as absent for lookups
        keys[kept] = interner.intern(keyValue.getKey());
        values[kept] = value;
        kept++;
      }
    }
    if (kept < size) {
      keys = Arrays.copyOf(keys, kept);
      values = Arrays.copyOf(values, kept);
    }
    return Attributes.wrap(keys, values);
  }

  private Object value(AnyValue value) {
    return switch (value.getValueCase()) {
      case STRING_VALUE -> value.getStringValue();
      case BOOL_VALUE -> value.getBoolValue();
      case INT_VALUE -> value.getIntValue();
      case DOUBLE_VALUE -> value.getDoubleValue();
      case BYTES_VALUE -> value.getBytesValue().toByteArray();
      case ARRAY_VALUE -> {
        List<Object> elements = new ArrayList<>(value.getArrayValue().getValuesCount());
        for (AnyValue element : value.getArrayValue().getValuesList()) {
          elements.add(value(element));
        }
        yield Collections.unmodifiableList(elements);
      }
      case KVLIST_VALUE -> attributes(value.getKvlistValue().getValuesList());
      // VALUE_NOT_SET, and kinds newer than this mapper: absent here, still in the encoded span.
      default -> null;
    };
  }

  private static long longAt(ByteString bytes, int offset) {
    long value = 0;
    for (int i = 0; i < 8; i++) {
      value = (value << 8) | (bytes.byteAt(offset + i) & 0xFF);
    }
    return value;
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
