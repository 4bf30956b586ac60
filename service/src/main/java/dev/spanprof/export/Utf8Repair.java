package dev.spanprof.export;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import dev.spanprof.analysis.span.SpanResource;
import dev.spanprof.analysis.span.SpanScope;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;

/**
 * Replaces invalid UTF-8 in the string fields of a span, and of its resource and scope, with
 * U+FFFD, as the analysis decodes them. Ingest keeps a span's bytes as the client sent them, and
 * a next hop that checks proto3 strings (protobuf-java, Go's protobuf) refuses a whole request for
 * one such string; forwarding isolates that span ({@link Forwarder}) and sends it repaired.
 *
 * <p>Only the string fields of the OTLP trace schema are looked at (names, keys, string values,
 * trace states, status messages, at any depth of arrays and key-value lists); every other field is
 * copied as it is.
 */
final class Utf8Repair {

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

  private Utf8Repair() {}

  /**
   * {@code entry} with every invalid string repaired, its bytes in arrays of its own (holding no
   * slab); null when it had none, or its bytes are not a well-formed span.
   */
  static ExportEntry repair(ExportEntry entry) {
    byte[] span = new byte[entry.spanBytes()];
    System.arraycopy(entry.span(), entry.spanOffset(), span, 0, entry.spanLength());
    System.arraycopy(entry.appended(), entry.appendedOffset(), span, entry.spanLength(),
        entry.appendedLength());
    try {
      byte[] repairedSpan = repair(span, Schema.SPAN);
      SpanResource resource = entry.resource();
      byte[] repairedResource = repair(resource.encoded(), Schema.RESOURCE);
      SpanScope scope = entry.scope();
      byte[] repairedScope = repair(scope.encoded(), Schema.SCOPE);
      if (repairedSpan == span && repairedResource == resource.encoded()
          && repairedScope == scope.encoded()) {
        return null;
      }
      if (repairedResource != resource.encoded()) {
        resource = new SpanResource(resource.serviceName(), resource.attributes(),
            resource.schemaUrl(), repairedResource);
      }
      if (repairedScope != scope.encoded()) {
        scope = new SpanScope(scope.name(), scope.version(), scope.attributes(),
            scope.schemaUrl(), repairedScope);
      }
      return new ExportEntry(resource, scope, repairedSpan, 0, repairedSpan.length, null,
          new byte[0], 0, 0, null);
    } catch (IOException malformed) {
      return null;
    }
  }

  /** {@code message} repaired, or the same array when no string in it needed it. */
  private static byte[] repair(byte[] message, Schema schema) throws IOException {
    CodedInputStream in = CodedInputStream.newInstance(message);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(message.length + 16);
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    boolean changed = false;
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      int number = WireFormat.getTagFieldNumber(tag);
      boolean string = STRINGS.getOrDefault(schema, Set.of()).contains(number);
      Schema inner = MESSAGES.getOrDefault(schema, Map.of()).get(number);
      if (WireFormat.getTagWireType(tag) != WireFormat.WIRETYPE_LENGTH_DELIMITED
          || !string && inner == null) {
        in.skipField(tag, out);
        continue;
      }
      byte[] value = in.readByteArray();
      byte[] repaired = string ? repairString(value) : repair(value, inner);
      changed |= repaired != value;
      out.writeByteArray(number, repaired);
    }
    out.flush();
    return changed ? bytes.toByteArray() : message;
  }

  /** The string's bytes with each invalid sequence replaced, or the same array when valid. */
  private static byte[] repairString(byte[] utf8) {
    byte[] decoded = new String(utf8, UTF_8).getBytes(UTF_8);
    return Arrays.equals(decoded, utf8) ? utf8 : decoded;
  }
}
