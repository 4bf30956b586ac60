package dev.spanprof.api;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Parser;
import dev.spanprof.otlp.InvalidOtlpException;
import dev.spanprof.otlp.Utf8Strings;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A kept trace's spans as the application sent them, read back from the {@link OriginalSpanLog}:
 * each span's encoded OTLP {@code Span} and the resource it came with, so that a trace's page
 * can show the attributes, events, links and resource attributes spanprof's analysis does not
 * read. They are decoded only when asked for.
 */
final class OriginalSpans {

  /** An entry of the log, as it wrote it. */
  private final byte[] entry;
  /** Where each resource's encoding starts in {@code entry}, and how long it is. */
  private final int[] resourceStarts;
  private final int[] resourceLengths;
  private final int[] spanStarts;
  private final int[] spanLengths;
  private final int[] resourceOfSpan;

  private OriginalSpans(byte[] entry, int[] resourceStarts, int[] resourceLengths,
      int[] spanStarts, int[] spanLengths, int[] resourceOfSpan) {
    this.entry = entry;
    this.resourceStarts = resourceStarts;
    this.resourceLengths = resourceLengths;
    this.spanStarts = spanStarts;
    this.spanLengths = spanLengths;
    this.resourceOfSpan = resourceOfSpan;
  }

  /** The spans of an entry as {@link OriginalSpanLog} writes one. */
  static OriginalSpans of(byte[] entry) {
    ByteBuffer in = ByteBuffer.wrap(entry);
    in.getInt(); // the entry's length
    int resources = in.getInt();
    int spans = in.getInt();
    int[] resourceStarts = new int[resources];
    int[] resourceLengths = new int[resources];
    for (int r = 0; r < resources; r++) {
      resourceLengths[r] = in.getInt();
      resourceStarts[r] = in.position();
      in.position(in.position() + resourceLengths[r]);
    }
    int[] spanStarts = new int[spans];
    int[] spanLengths = new int[spans];
    int[] resourceOfSpan = new int[spans];
    for (int s = 0; s < spans; s++) {
      resourceOfSpan[s] = in.getInt();
      spanLengths[s] = in.getInt();
      spanStarts[s] = in.position();
      in.position(in.position() + spanLengths[s]);
    }
    return new OriginalSpans(entry, resourceStarts, resourceLengths, spanStarts, spanLengths,
        resourceOfSpan);
  }

  int spanCount() {
    return spanStarts.length;
  }

  int resourceCount() {
    return resourceStarts.length;
  }

  int resourceOf(int span) {
    return resourceOfSpan[span];
  }

  /**
   * Span {@code index} (its place in the trace as analysed), decoded. A string that is not valid
   * UTF-8, which ingest keeps as sent and protobuf-java refuses, is read repaired (U+FFFD); a span
   * that still does not decode reads as empty, so that it takes no page or search down with it.
   */
  Span span(int index) {
    return parse(Arrays.copyOfRange(entry, spanStarts[index],
        spanStarts[index] + spanLengths[index]), Span.parser(), Utf8Strings::span,
        Span.getDefaultInstance());
  }

  /** Resource {@code index}, decoded as {@link #span} decodes a span. */
  Resource resource(int index) {
    return parse(Arrays.copyOfRange(entry, resourceStarts[index],
        resourceStarts[index] + resourceLengths[index]), Resource.parser(),
        Utf8Strings::resource, Resource.getDefaultInstance());
  }

  /** How a message's strings are repaired. */
  private interface Repair {
    byte[] repaired(byte[] message) throws InvalidOtlpException;
  }

  private static <T> T parse(byte[] message, Parser<T> parser, Repair repair, T empty) {
    try {
      return parser.parseFrom(message);
    } catch (InvalidProtocolBufferException invalid) {
      try {
        return parser.parseFrom(repair.repaired(message));
      } catch (InvalidProtocolBufferException | InvalidOtlpException malformed) {
        return empty;
      }
    }
  }

  /**
   * Whether some span or resource of the trace has each of {@code attributes} (key and the text
   * of its value, as {@link #text} writes it). Most traces are ruled out before anything is
   * decoded: the encoding must hold each key's UTF-8 bytes, and each value's unless the value
   * could be the text of a number, a boolean, a list or a map, which are not encoded as text.
   */
  boolean hasAttributes(Map<String, String> attributes) {
    String encoding = new String(entry, StandardCharsets.ISO_8859_1);
    for (Map.Entry<String, String> wanted : attributes.entrySet()) {
      if (!encoding.contains(latin1(wanted.getKey()))
          || !encoding.contains(latin1(wanted.getValue())) && !notText(wanted.getValue())) {
        return false;
      }
    }
    Map<String, List<String>> found = new LinkedHashMap<>();
    for (int r = 0; r < resourceCount(); r++) {
      collect(resource(r).getAttributesList(), attributes, found);
    }
    for (int s = 0; s < spanCount(); s++) {
      collect(span(s).getAttributesList(), attributes, found);
    }
    return attributes.entrySet().stream().allMatch(wanted ->
        found.getOrDefault(wanted.getKey(), List.of()).contains(wanted.getValue()));
  }

  /**
   * {@code text}'s UTF-8 bytes as the characters of a Latin-1 string: a search for them in the
   * encoding read so is {@link String#contains}, which the JVM runs as an intrinsic, many times
   * faster than a loop over the bytes ({@code TraceSearchBenchmark}).
   */
  private static String latin1(String text) {
    return new String(text.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
  }

  /** Whether {@code value} could be how {@link #text} writes a value that is not a string. */
  private static boolean notText(String value) {
    return value.equals("true") || value.equals("false") || value.startsWith("[")
        || value.startsWith("{") || value.matches("-?[0-9][0-9.eE+-]*|NaN|-?Infinity");
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
