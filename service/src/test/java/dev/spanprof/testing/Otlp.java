package dev.spanprof.testing;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import com.google.rpc.RetryInfo;
import com.google.rpc.Status;
import dev.spanprof.span.TraceId;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** Builds OTLP requests for tests. */
public final class Otlp {

  private Otlp() {}

  /** A span of {@code trace} with span id {@code spanId}, 1 µs long. */
  public static Span.Builder span(TraceId trace, long spanId) {
    return Span.newBuilder()
        .setTraceId(ByteString.copyFrom(
            ByteBuffer.allocate(16).putLong(trace.high()).putLong(trace.low()).array()))
        .setSpanId(ByteString.copyFrom(ByteBuffer.allocate(8).putLong(spanId).array()))
        .setName("op")
        .setStartTimeUnixNano(1_700_000_000_000_000_000L)
        .setEndTimeUnixNano(1_700_000_000_000_001_000L);
  }

  /** A request of one trace of {@code spans} spans (ids 1..n), span 1 the parent of the rest. */
  public static ExportTraceServiceRequest rootAndChildren(String service, TraceId trace,
      int spans) {
    Span.Builder[] built = new Span.Builder[spans];
    for (int i = 0; i < spans; i++) {
      built[i] = span(trace, i + 1);
      if (i > 0) {
        built[i].setParentSpanId(ByteString.copyFrom(ByteBuffer.allocate(8).putLong(1).array()));
      }
    }
    return request(service, built);
  }

  /**
   * A protobuf request framed as OTLP (one ResourceSpans, one ScopeSpans, two span frames) whose
   * spans are not spans inside: each is a tag whose varint is cut off. Counting its spans reads
   * two; decoding them finds the request malformed.
   */
  public static byte[] twoSpansMalformedInside() {
    byte[] notASpan = {0x08};
    return WireBytes.field(1, WireBytes.field(2,
        WireBytes.field(2, notASpan), WireBytes.field(2, notASpan)));
  }

  /**
   * The OTLP/JSON counterpart of {@link #twoSpansMalformedInside}: a well-formed request of two
   * spans whose trace ids are not hex. Counting its spans reads two; decoding them finds the
   * request malformed.
   */
  public static byte[] twoJsonSpansMalformedInside() {
    return ("{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":"
        + "[{\"traceId\":\"not hex\"},{\"traceId\":\"not hex\"}]}]}]}").getBytes(StandardCharsets.UTF_8);
  }

  /** A {@code google.rpc.Status} an OTLP/HTTP response gave in JSON, its {@code RetryInfo} read. */
  public static Status jsonStatus(byte[] body) throws InvalidProtocolBufferException {
    Status.Builder status = Status.newBuilder();
    JsonFormat.parser()
        .usingTypeRegistry(JsonFormat.TypeRegistry.newBuilder().add(RetryInfo.getDescriptor()).build())
        .merge(new String(body, StandardCharsets.UTF_8), status);
    return status.build();
  }

  /** A request of one resource ({@code service.name=service}) holding {@code spans}. */
  public static ExportTraceServiceRequest request(String service, Span.Builder... spans) {
    ScopeSpans.Builder scope = ScopeSpans.newBuilder();
    for (Span.Builder span : spans) {
      scope.addSpans(span);
    }
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(ResourceSpans.newBuilder()
            .setResource(Resource.newBuilder().addAttributes(KeyValue.newBuilder()
                .setKey("service.name")
                .setValue(AnyValue.newBuilder().setStringValue(service))))
            .addScopeSpans(scope))
        .build();
  }
}
