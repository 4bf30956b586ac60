package dev.spanprof.export;

import io.grpc.Drainable;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.grpc.protobuf.ProtoUtils;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * The forwarder's gRPC marshaller. gRPC drains a {@link Drainable} message stream into its
 * compressor, or, uncompressed, into its frame buffers once it knows the length
 * ({@link KnownLength}), so the request is encoded right there, as grpc-java's own protobuf
 * marshaller does with a message, and never exists as one array.
 */
final class ExportRequestMarshaller implements MethodDescriptor.Marshaller<ExportRequest> {

  /** OTLP's trace {@code Export} method, the request encoded as it is sent. */
  static final MethodDescriptor<ExportRequest, ExportTraceServiceResponse> TRACE_EXPORT =
      TraceServiceGrpc.getExportMethod().toBuilder(new ExportRequestMarshaller(),
              ProtoUtils.marshaller(ExportTraceServiceResponse.getDefaultInstance()))
          .build();

  private ExportRequestMarshaller() {}

  @Override
  public InputStream stream(ExportRequest request) {
    return new EncodingStream(request);
  }

  @Override
  public ExportRequest parse(InputStream stream) {
    throw new UnsupportedOperationException("the forwarder only sends export requests");
  }

  /** Encodes the request when drained; read byte by byte (gRPC does not), it encodes it whole. */
  private static final class EncodingStream extends InputStream implements Drainable, KnownLength {
    private final ExportRequest request;
    private boolean consumed;
    private ByteArrayInputStream whole;

    EncodingStream(ExportRequest request) {
      this.request = request;
    }

    @Override
    public int drainTo(OutputStream target) throws IOException {
      if (whole != null) {
        return (int) whole.transferTo(target);
      }
      if (consumed) {
        return 0;
      }
      consumed = true;
      request.writeTo(target);
      return request.size();
    }

    @Override
    public int available() {
      if (whole != null) {
        return whole.available();
      }
      return consumed ? 0 : request.size();
    }

    @Override
    public int read() {
      return whole().read();
    }

    @Override
    public int read(byte[] buffer, int offset, int length) {
      return whole().read(buffer, offset, length);
    }

    private ByteArrayInputStream whole() {
      if (whole == null) {
        whole = new ByteArrayInputStream(consumed ? new byte[0] : request.toByteArray());
        consumed = true;
      }
      return whole;
    }
  }
}
