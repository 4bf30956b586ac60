package dev.spanprof.export;

import com.google.protobuf.CodedOutputStream;
import dev.spanprof.analysis.SpanResource;
import dev.spanprof.analysis.SpanScope;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Encodes spans into an {@code ExportTraceServiceRequest} directly from their encoded parts:
 * the original {@code Resource} and {@code InstrumentationScope} bytes, and each span's bytes, in
 * the resource and scope groups they arrived in. No message tree is built.
 */
final class ExportRequestEncoder {

  private ExportRequestEncoder() {}

  static byte[] encode(List<ExportEntry> entries) {
    // Same resource and scope objects: same block of the same original request.
    Map<SpanResource, Map<SpanScope, List<byte[]>>> groups = new LinkedHashMap<>();
    for (ExportEntry entry : entries) {
      groups.computeIfAbsent(entry.resource(), unused -> new LinkedHashMap<>())
          .computeIfAbsent(entry.scope(), unused -> new ArrayList<>())
          .add(entry.span());
    }
    ByteArrayOutputStream request = new ByteArrayOutputStream();
    groups.forEach((resource, scopes) -> {
      ByteArrayOutputStream resourceSpans = new ByteArrayOutputStream();
      write(resourceSpans, ResourceSpans.RESOURCE_FIELD_NUMBER, resource.encoded());
      scopes.forEach((scope, spans) -> {
        ByteArrayOutputStream scopeSpans = new ByteArrayOutputStream();
        write(scopeSpans, ScopeSpans.SCOPE_FIELD_NUMBER, scope.encoded());
        for (byte[] span : spans) {
          write(scopeSpans, ScopeSpans.SPANS_FIELD_NUMBER, span);
        }
        writeString(scopeSpans, ScopeSpans.SCHEMA_URL_FIELD_NUMBER, scope.schemaUrl());
        write(resourceSpans, ResourceSpans.SCOPE_SPANS_FIELD_NUMBER, scopeSpans.toByteArray());
      });
      writeString(resourceSpans, ResourceSpans.SCHEMA_URL_FIELD_NUMBER, resource.schemaUrl());
      write(request, ExportTraceServiceRequest.RESOURCE_SPANS_FIELD_NUMBER,
          resourceSpans.toByteArray());
    });
    return request.toByteArray();
  }

  private static void write(ByteArrayOutputStream out, int field, byte[] message) {
    try {
      CodedOutputStream coded = CodedOutputStream.newInstance(out);
      coded.writeByteArray(field, message);
      coded.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("writing to memory failed", e);
    }
  }

  private static void writeString(ByteArrayOutputStream out, int field, String value) {
    if (!value.isEmpty()) {
      try {
        CodedOutputStream coded = CodedOutputStream.newInstance(out);
        coded.writeString(field, value);
        coded.flush();
      } catch (IOException e) {
        throw new UncheckedIOException("writing to memory failed", e);
      }
    }
  }
}
