package dev.spanprof.api;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.spanprof.span.SpanRecord;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A kept trace's spans as the application sent them: each span's encoded OTLP {@code Span} and
 * the resource it came with, copied when the trace is kept, so that a trace's page can show the
 * attributes, events, links and resource attributes spanprof's analysis does not read. They are
 * decoded only when asked for.
 */
final class OriginalSpans {

  /** What one object costs besides its arrays' contents: header, fields, references. */
  private static final int OVERHEAD_BYTES = 64;

  /** Span {@code i}'s encoding is {@code spans[starts[i], starts[i + 1])}. */
  private final byte[] spans;
  private final int[] starts;
  /** The distinct encoded {@code Resource} messages of the spans, shared with them. */
  private final byte[][] resources;
  private final int[] resourceOfSpan;
  private final long sizeBytes;

  private OriginalSpans(byte[] spans, int[] starts, byte[][] resources, int[] resourceOfSpan) {
    this.spans = spans;
    this.starts = starts;
    this.resources = resources;
    this.resourceOfSpan = resourceOfSpan;
    long size = OVERHEAD_BYTES + spans.length + 8L * starts.length;
    for (byte[] resource : resources) {
      size += resource.length + 16;
    }
    this.sizeBytes = size;
  }

  /** Copies of {@code spans}' encodings, in their order: read them before their bytes go. */
  static OriginalSpans copyOf(List<SpanRecord> spans) {
    int[] starts = new int[spans.size() + 1];
    for (int i = 0; i < spans.size(); i++) {
      starts[i + 1] = starts[i] + spans.get(i).encodedLength();
    }
    byte[] bytes = new byte[starts[spans.size()]];
    Map<byte[], Integer> resourceIndex = new IdentityHashMap<>();
    int[] resourceOfSpan = new int[spans.size()];
    for (int i = 0; i < spans.size(); i++) {
      SpanRecord span = spans.get(i);
      System.arraycopy(span.encodedArray(), span.encodedOffset(), bytes, starts[i],
          span.encodedLength());
      resourceOfSpan[i] = resourceIndex.computeIfAbsent(span.resource().encoded(),
          unused -> resourceIndex.size());
    }
    byte[][] resources = new byte[resourceIndex.size()][];
    resourceIndex.forEach((encoded, index) -> resources[index] = encoded);
    return new OriginalSpans(bytes, starts, resources, resourceOfSpan);
  }

  /** About what this holds on the heap, the resources counted as if no other trace shared them. */
  long sizeBytes() {
    return sizeBytes;
  }

  int spanCount() {
    return resourceOfSpan.length;
  }

  int resourceCount() {
    return resources.length;
  }

  int resourceOf(int span) {
    return resourceOfSpan[span];
  }

  /** Span {@code index} (its place in the trace as analysed), decoded. */
  Span span(int index) {
    try {
      return Span.parseFrom(Arrays.copyOfRange(spans, starts[index], starts[index + 1]));
    } catch (InvalidProtocolBufferException e) {
      // Read once already, at ingest, to be accepted.
      throw new IllegalStateException("a kept span no longer decodes", e);
    }
  }

  Resource resource(int index) {
    try {
      return Resource.parseFrom(resources[index]);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("a kept resource no longer decodes", e);
    }
  }

  /**
   * Whether some span or resource of the trace has each of {@code attributes} (key and the text
   * of its value, as {@link #text} writes it). The encodings must hold every key as UTF-8 bytes
   * to match, so most traces are ruled out before anything is decoded.
   */
  boolean hasAttributes(Map<String, String> attributes) {
    for (String key : attributes.keySet()) {
      if (!holds(key)) {
        return false;
      }
    }
    Map<String, List<String>> found = new LinkedHashMap<>();
    for (int r = 0; r < resources.length; r++) {
      collect(resource(r).getAttributesList(), attributes, found);
    }
    for (int s = 0; s < spanCount(); s++) {
      collect(span(s).getAttributesList(), attributes, found);
    }
    return attributes.entrySet().stream().allMatch(wanted ->
        found.getOrDefault(wanted.getKey(), List.of()).contains(wanted.getValue()));
  }

  private static void collect(List<KeyValue> attributes, Map<String, String> wanted,
      Map<String, List<String>> found) {
    for (KeyValue attribute : attributes) {
      if (wanted.containsKey(attribute.getKey())) {
        found.computeIfAbsent(attribute.getKey(), unused -> new ArrayList<>())
            .add(text(attribute.getValue()));
      }
    }
  }

  /** Whether {@code text}'s UTF-8 bytes are among the spans' or resources' encodings. */
  private boolean holds(String text) {
    byte[] needle = text.getBytes(StandardCharsets.UTF_8);
    if (indexOf(spans, needle) >= 0) {
      return true;
    }
    for (byte[] resource : resources) {
      if (indexOf(resource, needle) >= 0) {
        return true;
      }
    }
    return false;
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i <= haystack.length - needle.length; i++) {
      for (int k = 0; k < needle.length; k++) {
        if (haystack[i + k] != needle[k]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  /** An attribute value as JSON has it: strings, numbers, booleans, lists and objects. */
  static Object json(AnyValue value) {
    return switch (value.getValueCase()) {
      case STRING_VALUE -> value.getStringValue();
      case BOOL_VALUE -> value.getBoolValue();
      case INT_VALUE -> value.getIntValue();
      case DOUBLE_VALUE -> value.getDoubleValue();
      case ARRAY_VALUE -> value.getArrayValue().getValuesList().stream()
          .map(OriginalSpans::json).toList();
      case KVLIST_VALUE -> json(value.getKvlistValue().getValuesList());
      case BYTES_VALUE -> Base64.getEncoder().encodeToString(value.getBytesValue().toByteArray());
      default -> ""; // not set, or a kind this proto version does not know
    };
  }

  static Map<String, Object> json(List<KeyValue> attributes) {
    Map<String, Object> result = new LinkedHashMap<>();
    for (KeyValue attribute : attributes) {
      result.put(attribute.getKey(), json(attribute.getValue()));
    }
    return result;
  }

  /** A value as a search compares it: a string as it is, anything else as JSON writes it. */
  static String text(AnyValue value) {
    return String.valueOf(json(value));
  }
}
