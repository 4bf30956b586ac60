package dev.spanprof.export;

import dev.spanprof.otlp.InvalidOtlpException;
import dev.spanprof.otlp.Utf8Strings;
import dev.spanprof.span.SpanOrigin;
import dev.spanprof.span.SpanResource;
import dev.spanprof.span.SpanScope;

/**
 * Replaces invalid UTF-8 in the string fields of a span, and of its resource and scope, with
 * U+FFFD, as the analysis decodes them. Ingest keeps a span's bytes as the client sent them, and
 * a next hop that checks proto3 strings (protobuf-java, Go's protobuf) refuses a whole request for
 * one such string; forwarding isolates that span ({@link Forwarder}) and sends it repaired.
 *
 * <p>{@link Utf8Strings} repairs each message.
 */
final class Utf8Repair {

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
      byte[] repairedSpan = Utf8Strings.span(span);
      SpanResource resource = entry.resource();
      byte[] repairedResource = Utf8Strings.resource(resource.encoded());
      SpanScope scope = entry.scope();
      byte[] repairedScope = Utf8Strings.scope(scope.encoded());
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
          new byte[0], 0, 0, null, SpanOrigin.NONE); // the original is released, not this copy
    } catch (InvalidOtlpException malformed) {
      return null;
    }
  }
}
