package dev.spanprof.ingest;

import dev.spanprof.config.IngestConfiguration;
import dev.spanprof.ingest.IngestListener.RequestRejection;
import io.grpc.Metadata;
import io.grpc.ServerBuilder;
import io.grpc.ServerStreamTracer;
import io.grpc.Status;
import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import jakarta.inject.Singleton;

/**
 * Applies {@code spanprof.ingest.max-message-size} to the gRPC server, whose own default (4 MiB)
 * is below what OTLP senders batch, and counts what that limit refuses. The limit holds for
 * messages after decompression, zstd (added here) as gzip.
 *
 * <p>Beyond the limit gRPC's deframer answers RESOURCE_EXHAUSTED ("gRPC message exceeds maximum
 * size …") before any spanprof code runs, so the refusal is seen where gRPC reports every stream's
 * final status: a {@link ServerStreamTracer} on the OTLP export method.
 */
@Singleton
final class GrpcServerLimits implements BeanCreatedEventListener<ServerBuilder<?>> {

  /** The start of grpc-java's description for an oversized message (MessageDeframer). */
  private static final String OVERSIZE = "gRPC message exceeds maximum size";

  private final int maxMessageSize;
  private final IngestListener listener;

  GrpcServerLimits(IngestConfiguration configuration, IngestListener listener) {
    this.maxMessageSize = configuration.getMaxMessageSize();
    this.listener = listener;
  }

  @Override
  public ServerBuilder<?> onCreated(BeanCreatedEvent<ServerBuilder<?>> event) {
    return event.getBean()
        .maxInboundMessageSize(maxMessageSize)
        .decompressorRegistry(ZstdDecompressor.registry())
        .addStreamTracerFactory(new ServerStreamTracer.Factory() {
          @Override
          public ServerStreamTracer newServerStreamTracer(String fullMethodName, Metadata headers) {
            return TraceServiceGrpc.getExportMethod().getFullMethodName().equals(fullMethodName)
                ? new OversizeCounter() : NOOP;
          }
        });
  }

  private static final ServerStreamTracer NOOP = new ServerStreamTracer() {};

  private final class OversizeCounter extends ServerStreamTracer {
    @Override
    public void streamClosed(Status status) {
      String description = status.getDescription();
      if (status.getCode() == Status.Code.RESOURCE_EXHAUSTED
          && description != null && description.startsWith(OVERSIZE)) {
        listener.onRequestRejected(Transport.GRPC, RequestRejection.TOO_LARGE);
      }
    }
  }
}
