package dev.spanprof.ingest;

import dev.spanprof.config.IngestConfiguration;
import io.grpc.ServerBuilder;
import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import jakarta.inject.Singleton;

/**
 * Applies {@code spanprof.ingest.max-message-size} to the gRPC server, whose own default (4 MiB)
 * is below what OTLP senders batch. Beyond it gRPC answers RESOURCE_EXHAUSTED ("gRPC message
 * exceeds maximum size …") before any spanprof code runs.
 */
@Singleton
final class GrpcServerLimits implements BeanCreatedEventListener<ServerBuilder<?>> {

  private final int maxMessageSize;

  GrpcServerLimits(IngestConfiguration configuration) {
    this.maxMessageSize = configuration.getMaxMessageSize();
  }

  @Override
  public ServerBuilder<?> onCreated(BeanCreatedEvent<ServerBuilder<?>> event) {
    return event.getBean().maxInboundMessageSize(maxMessageSize);
  }
}
