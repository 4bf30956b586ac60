package dev.spanprof.ingest;

import io.grpc.MethodDescriptor;
import io.grpc.protobuf.ProtoUtils;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * A gRPC marshaller that passes messages as their encoded bytes, so the side that holds them
 * decides when (and whether) to parse: spanprof's OTLP endpoint, its forwarder and the benchmark
 * tools all exchange {@code ExportTraceServiceRequest}s this way.
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

  @Override
  public byte[] parse(InputStream stream) {
    try (stream) {
      return stream.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
