package dev.spanprof.ingest.grpc;

import dev.spanprof.ingest.IngestListener;
import dev.spanprof.ingest.Transport;
import dev.spanprof.ingest.ZstdDecompressor;
import dev.spanprof.config.IngestConfiguration;
import dev.spanprof.config.ListenerLimits;
import dev.spanprof.ingest.IngestListener.RequestRejection;
import io.grpc.Metadata;
import io.grpc.ServerBuilder;
import io.grpc.ServerStreamTracer;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyServerBuilder;
import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import jakarta.inject.Singleton;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * Applies {@code spanprof.ingest.max-message-size} to the gRPC server, whose own default (4 MiB)
 * is below what OTLP senders batch, and counts what that limit refuses. The limit holds for
 * messages after decompression, zstd (added here) as gzip.
 *
 * <p>Beyond the limit gRPC's deframer answers RESOURCE_EXHAUSTED ("gRPC message exceeds maximum
 * size …") before any spanprof code runs, as gRPC answers UNIMPLEMENTED to an encoding it cannot
 * decompress, so those refusals are seen where gRPC reports every stream's final status: a
 * {@link ServerStreamTracer} on the OTLP export method. grpc-java also logs each such refusal
 * with a 16-line stack trace ({@code NettyServerStream}, through java.util.logging); counted and
 * answered with a message, it is left out of the log.
 */
@Singleton
final class GrpcServerLimits implements BeanCreatedEventListener<ServerBuilder<?>> {

  /** The start of grpc-java's description for an oversized message (MessageDeframer). */
  private static final String OVERSIZE = "gRPC message exceeds maximum size";
  /** The start of grpc-java's description for a {@code grpc-encoding} it has no decompressor for. */
  private static final String UNKNOWN_ENCODING = "Can't find decompressor for";

  /** Held, so that the filter set on it stays: java.util.logging keeps loggers weakly. */
  static final Logger GRPC_STREAM_LOG = Logger.getLogger("io.grpc.netty.NettyServerStream");

  static {
    GRPC_STREAM_LOG.setFilter(record -> !(record.getThrown() instanceof StatusRuntimeException e
        && e.getStatus().getCode() == Status.Code.RESOURCE_EXHAUSTED
        && e.getStatus().getDescription() != null
        && e.getStatus().getDescription().startsWith(OVERSIZE)));
  }

  private final int maxMessageSize;
  private final IngestListener listener;

  private final ListenerLimits limits;

  GrpcServerLimits(IngestConfiguration configuration, ListenerLimits limits,
      IngestListener listener) {
    this.maxMessageSize = configuration.getMaxMessageSize();
    this.limits = limits;
    this.listener = listener;
  }

  @Override
  public ServerBuilder<?> onCreated(BeanCreatedEvent<ServerBuilder<?>> event) {
    if (event.getBean() instanceof NettyServerBuilder netty) {
      // Against slow and greedy clients: calls per connection, idle and old connections, and
      // clients pinging more often than the Collector's receiver allows.
      netty.maxConcurrentCallsPerConnection(limits.getGrpcMaxConcurrentStreams())
          .maxConnectionIdle(limits.getIdleTimeout().toMillis(), TimeUnit.MILLISECONDS)
          .maxConnectionAge(limits.getGrpcMaxConnectionAge().toMillis(), TimeUnit.MILLISECONDS)
          .maxConnectionAgeGrace(30, TimeUnit.SECONDS)
          .permitKeepAliveTime(limits.getGrpcKeepaliveMinTime().toMillis(), TimeUnit.MILLISECONDS)
          .permitKeepAliveWithoutCalls(false);
    }
    return event.getBean()
        .handshakeTimeout(limits.getHandshakeTimeout().toMillis(), TimeUnit.MILLISECONDS)
        .maxInboundMessageSize(maxMessageSize)
        .decompressorRegistry(ZstdDecompressor.registry())
        .addStreamTracerFactory(new ServerStreamTracer.Factory() {
          @Override
          public ServerStreamTracer newServerStreamTracer(String fullMethodName, Metadata headers) {
            return TraceServiceGrpc.getExportMethod().getFullMethodName().equals(fullMethodName)
                ? new RefusalCounter() : NOOP;
          }
        });
  }

  private static final ServerStreamTracer NOOP = new ServerStreamTracer() {};

  private final class RefusalCounter extends ServerStreamTracer {
    @Override
    public void streamClosed(Status status) {
      String description = status.getDescription();
      if (description == null) {
        return;
      }
      if (status.getCode() == Status.Code.RESOURCE_EXHAUSTED && description.startsWith(OVERSIZE)) {
        listener.onRequestRejected(Transport.GRPC, RequestRejection.TOO_LARGE);
      } else if (status.getCode() == Status.Code.UNIMPLEMENTED
          && description.startsWith(UNKNOWN_ENCODING)) {
        listener.onRequestRejected(Transport.GRPC, RequestRejection.UNSUPPORTED_MEDIA_TYPE);
      }
    }
  }
}
