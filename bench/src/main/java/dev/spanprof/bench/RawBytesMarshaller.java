package dev.spanprof.bench;

import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.grpc.protobuf.ProtoUtils;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;

/**
 * A gRPC marshaller that passes messages as their encoded bytes, so the side that holds them
 * decides when (and whether) to parse: the load generator sends its requests this way, and the
 * decode-only sink receives them so, as spanprof's own endpoint does ({@code RequestBodies}); the
 * pass-through forwarder forwarding received bytes does both.
 */
public final class RawBytesMarshaller implements MethodDescriptor.Marshaller<byte[]> {

  private static final RawBytesMarshaller INSTANCE = new RawBytesMarshaller();

  /** OTLP's trace {@code Export} method with the request as its encoded bytes. */
  public static final MethodDescriptor<byte[], ExportTraceServiceResponse> TRACE_EXPORT =
      TraceServiceGrpc.getExportMethod().toBuilder(
              INSTANCE, ProtoUtils.marshaller(ExportTraceServiceResponse.getDefaultInstance()))
          .build();

  private RawBytesMarshaller() {}

  @Override
  public InputStream stream(byte[] value) {
    return new ByteArrayInputStream(value);
  }

  /**
   * The message's bytes. gRPC's stream of a received message knows its length (unless the
   * message was compressed): it is read straight into an array of that size, rather than into
   * chunks copied into one array at the end, which allocated and copied every request twice.
   */
  @Override
  public byte[] parse(InputStream stream) {
    try (stream) {
      if (!(stream instanceof KnownLength)) {
        return stream.readAllBytes();
      }
      byte[] message = new byte[stream.available()];
      int read = stream.readNBytes(message, 0, message.length);
      if (read < message.length) {
        return Arrays.copyOf(message, read);
      }
      int next = stream.read();
      if (next < 0) {
        return message;
      }
      // Longer than announced: the rest too, however long.
      ByteArrayOutputStream whole = new ByteArrayOutputStream(message.length * 2 + 1);
      whole.write(message);
      whole.write(next);
      stream.transferTo(whole);
      return whole.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
