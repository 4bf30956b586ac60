package dev.spanprof.export;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import dev.spanprof.span.SpanResource;
import dev.spanprof.span.SpanScope;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * An {@code ExportTraceServiceRequest} to be encoded directly from its spans' encoded parts: the
 * original {@code Resource} and {@code InstrumentationScope} bytes, and each span's original bytes
 * followed by its appended attributes, in the resource and scope groups they arrived in. No
 * message tree is built. The groups' sizes are summed once, since each length prefix precedes its
 * group; the request is then written straight into the stream that sends it (gRPC's compressor
 * or frame buffers), each time it is sent, rather than into an array first, which cost a copy
 * and about 500 bytes of allocation per forwarded span.
 */
final class ExportRequest {

  /** The encoder's buffer between the spans' arrays and the stream: a few spans' worth. */
  private static final int WRITE_BUFFER_BYTES = 8192;

  private final List<ResourceGroup> resources;
  private final int size;

  private ExportRequest(List<ResourceGroup> resources, int size) {
    this.resources = resources;
    this.size = size;
  }

  static ExportRequest of(List<ExportEntry> entries) {
    // Same resource and scope objects: same block of the same original request. Grouped by
    // identity, in order of arrival: the records' own equality hashes every attribute per span,
    // and holds only for the same object anyway (it compares the encodings as arrays).
    Map<SpanResource, ResourceGroup> byResource = new IdentityHashMap<>();
    List<ResourceGroup> resources = new ArrayList<>();
    for (ExportEntry entry : entries) {
      ResourceGroup resource = byResource.get(entry.resource());
      if (resource == null) {
        resource = new ResourceGroup(entry.resource());
        byResource.put(entry.resource(), resource);
        resources.add(resource);
      }
      resource.add(entry);
    }
    int size = 0;
    for (ResourceGroup resource : resources) {
      size += lengthDelimitedSize(
          ExportTraceServiceRequest.RESOURCE_SPANS_FIELD_NUMBER, resource.measure());
    }
    return new ExportRequest(resources, size);
  }

  /** The encoded request's size in bytes. */
  int size() {
    return size;
  }

  /** Writes the encoded request to {@code out}, which stays open. */
  void writeTo(OutputStream out) throws IOException {
    CodedOutputStream coded = CodedOutputStream.newInstance(out, WRITE_BUFFER_BYTES);
    writeTo(coded);
    coded.flush();
  }

  /** The encoded request as one array, for the senders that need it whole (OTLP/HTTP). */
  byte[] toByteArray() {
    byte[] request = new byte[size];
    CodedOutputStream out = CodedOutputStream.newInstance(request);
    try {
      writeTo(out);
      out.checkNoSpaceLeft();
    } catch (IOException e) {
      throw new IllegalStateException("the request's computed size was wrong", e);
    }
    return request;
  }

  private void writeTo(CodedOutputStream out) throws IOException {
    for (ResourceGroup resource : resources) {
      resource.writeTo(out);
    }
  }

  /** The spans of one scope of one resource block, and the {@code ScopeSpans} size they make. */
  private static final class ScopeGroup {
    private final SpanScope scope;
    private final List<ExportEntry> spans = new ArrayList<>();
    private int size;

    ScopeGroup(SpanScope scope) {
      this.scope = scope;
      this.size = CodedOutputStream.computeByteArraySize(ScopeSpans.SCOPE_FIELD_NUMBER,
          scope.encoded()) + stringSize(ScopeSpans.SCHEMA_URL_FIELD_NUMBER, scope.schemaUrl());
    }

    void add(ExportEntry span) {
      spans.add(span);
      size += lengthDelimitedSize(ScopeSpans.SPANS_FIELD_NUMBER, span.spanBytes());
    }

    void writeTo(CodedOutputStream out) throws IOException {
      out.writeTag(ResourceSpans.SCOPE_SPANS_FIELD_NUMBER, WireFormat.WIRETYPE_LENGTH_DELIMITED);
      out.writeUInt32NoTag(size);
      out.writeByteArray(ScopeSpans.SCOPE_FIELD_NUMBER, scope.encoded());
      for (ExportEntry span : spans) {
        out.writeTag(ScopeSpans.SPANS_FIELD_NUMBER, WireFormat.WIRETYPE_LENGTH_DELIMITED);
        out.writeUInt32NoTag(span.spanBytes());
        out.writeRawBytes(span.span(), span.spanOffset(), span.spanLength());
        out.writeRawBytes(span.appended(), span.appendedOffset(), span.appendedLength());
      }
      writeString(out, ScopeSpans.SCHEMA_URL_FIELD_NUMBER, scope.schemaUrl());
    }
  }

  /** One resource block's scopes, and the {@code ResourceSpans} size they make. */
  private static final class ResourceGroup {
    private final SpanResource resource;
    private final Map<SpanScope, ScopeGroup> byScope = new IdentityHashMap<>();
    private final List<ScopeGroup> scopes = new ArrayList<>();
    private int size;

    ResourceGroup(SpanResource resource) {
      this.resource = resource;
    }

    void add(ExportEntry span) {
      ScopeGroup group = byScope.get(span.scope());
      if (group == null) {
        group = new ScopeGroup(span.scope());
        byScope.put(span.scope(), group);
        scopes.add(group);
      }
      group.add(span);
    }

    /** The {@code ResourceSpans} size, once every span is added. */
    int measure() {
      size = CodedOutputStream.computeByteArraySize(ResourceSpans.RESOURCE_FIELD_NUMBER,
          resource.encoded()) + stringSize(ResourceSpans.SCHEMA_URL_FIELD_NUMBER, resource.schemaUrl());
      for (ScopeGroup scope : scopes) {
        size += lengthDelimitedSize(ResourceSpans.SCOPE_SPANS_FIELD_NUMBER, scope.size);
      }
      return size;
    }

    void writeTo(CodedOutputStream out) throws IOException {
      out.writeTag(ExportTraceServiceRequest.RESOURCE_SPANS_FIELD_NUMBER,
          WireFormat.WIRETYPE_LENGTH_DELIMITED);
      out.writeUInt32NoTag(size);
      out.writeByteArray(ResourceSpans.RESOURCE_FIELD_NUMBER, resource.encoded());
      for (ScopeGroup scope : scopes) {
        scope.writeTo(out);
      }
      writeString(out, ResourceSpans.SCHEMA_URL_FIELD_NUMBER, resource.schemaUrl());
    }
  }

  private static int lengthDelimitedSize(int field, int length) {
    return CodedOutputStream.computeTagSize(field) + CodedOutputStream.computeUInt32SizeNoTag(length)
        + length;
  }

  // An empty schema URL is proto3's default and is not written.

  private static int stringSize(int field, String value) {
    return value.isEmpty() ? 0 : CodedOutputStream.computeStringSize(field, value);
  }

  private static void writeString(CodedOutputStream out, int field, String value)
      throws IOException {
    if (!value.isEmpty()) {
      out.writeString(field, value);
    }
  }
}
