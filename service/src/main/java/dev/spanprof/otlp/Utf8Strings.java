package dev.spanprof.otlp;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;

/**
 * Replaces invalid UTF-8 in the string fields of an encoded OTLP span, resource or scope with
 * U+FFFD, as the analysis decodes them. Ingest keeps a span's bytes as the client sent them, and
 * a parser that checks proto3 strings (protobuf-java, Go's protobuf) refuses a message for one
 * such string: forwarding sends such a span repaired, and the query API reads it so.
 *
 * <p>Only the string fields of the OTLP trace schema are looked at (names, keys, string values,
 * trace states, status messages, at any depth of arrays and key-value lists); every other field is
 * copied as it is.
 */
public final class Utf8Strings {

  /** The messages of the OTLP trace schema that hold strings, directly or below. */
  private enum Schema { SPAN, EVENT, LINK, STATUS, KEY_VALUE, ANY_VALUE, ARRAY_VALUE,
    KEY_VALUE_LIST, RESOURCE, SCOPE }

  /** Each message's string fields, by number. */
  private static final Map<Schema, Set<Integer>> STRINGS = Map.of(
      Schema.SPAN, Set.of(3, 5), // trace_state, name
      Schema.EVENT, Set.of(2), // name
      Schema.LINK, Set.of(3), // trace_state
      Schema.STATUS, Set.of(2), // message
      Schema.KEY_VALUE, Set.of(1), // key
      Schema.ANY_VALUE, Set.of(1), // string_value
      Schema.SCOPE, Set.of(1, 2)); // name, version

  /** Each message's fields that are messages holding strings, by number. */
  private static final Map<Schema, Map<Integer, Schema>> MESSAGES = Map.of(
      Schema.SPAN, Map.of(9, Schema.KEY_VALUE, 11, Schema.EVENT, 13, Schema.LINK,
          15, Schema.STATUS),
      Schema.EVENT, Map.of(3, Schema.KEY_VALUE),
      Schema.LINK, Map.of(4, Schema.KEY_VALUE),
      Schema.KEY_VALUE, Map.of(2, Schema.ANY_VALUE),
      Schema.ANY_VALUE, Map.of(5, Schema.ARRAY_VALUE, 6, Schema.KEY_VALUE_LIST),
      Schema.ARRAY_VALUE, Map.of(1, Schema.ANY_VALUE),
      Schema.KEY_VALUE_LIST, Map.of(1, Schema.KEY_VALUE),
      Schema.RESOURCE, Map.of(1, Schema.KEY_VALUE),
      Schema.SCOPE, Map.of(3, Schema.KEY_VALUE));

  private Utf8Strings() {}

  /** An encoded {@code Span} repaired, or the same array when no string in it needed it. */
  public static byte[] span(byte[] span) throws InvalidOtlpException {
    return repair(span, Schema.SPAN);
  }

  /** An encoded {@code Resource} repaired, or the same array when none needed it. */
  public static byte[] resource(byte[] resource) throws InvalidOtlpException {
    return repair(resource, Schema.RESOURCE);
  }

  /** An encoded {@code InstrumentationScope} repaired, or the same array when none needed it. */
  public static byte[] scope(byte[] scope) throws InvalidOtlpException {
    return repair(scope, Schema.SCOPE);
  }

  /** {@code message} repaired, or the same array when no string in it needed it. */
  private static byte[] repair(byte[] message, Schema schema) throws InvalidOtlpException {
    WireReader in = new WireReader(message, 0, message.length);
    ByteArrayOutputStream out = new ByteArrayOutputStream(message.length + 16);
    boolean changed = false;
    while (in.hasMore()) {
      int fieldStart = in.position();
      int tag = in.readTag();
      int number = tag >>> 3;
      boolean string = STRINGS.getOrDefault(schema, Set.of()).contains(number);
      Schema inner = MESSAGES.getOrDefault(schema, Map.of()).get(number);
      if ((tag & 7) != WireReader.LENGTH_DELIMITED || !string && inner == null) {
        in.skip(tag);
        out.write(message, fieldStart, in.position() - fieldStart);
        continue;
      }
      int length = in.readLength();
      byte[] value = Arrays.copyOfRange(message, in.fieldOffset(), in.fieldOffset() + length);
      byte[] repaired = string ? repairString(value) : repair(value, inner);
      changed |= repaired != value;
      writeVarint(out, tag);
      writeVarint(out, repaired.length);
      out.write(repaired, 0, repaired.length);
    }
    return changed ? out.toByteArray() : message;
  }

  private static void writeVarint(ByteArrayOutputStream out, long value) {
    for (; (value & ~0x7FL) != 0; value >>>= 7) {
      out.write((int) (value & 0x7F) | 0x80);
    }
    out.write((int) value);
  }

  /** The string's bytes with each invalid sequence replaced, or the same array when valid. */
  private static byte[] repairString(byte[] utf8) {
    byte[] decoded = new String(utf8, UTF_8).getBytes(UTF_8);
    return Arrays.equals(decoded, utf8) ? utf8 : decoded;
  }
}
