package dev.spanprof.security;

import io.grpc.ServerBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import jakarta.inject.Singleton;
import javax.net.ssl.SSLException;

/** The gRPC port (OTLP, ProfileService, health) serves TLS only when a certificate is set. */
@Singleton
@Requires(beans = ServerTls.class)
final class GrpcServerTls implements BeanCreatedEventListener<ServerBuilder<?>> {

  private final ServerTls tls;
  private final TlsHandshakeFailures failures;

  GrpcServerTls(ServerTls tls, MeterRegistry registry) {
    this.tls = tls;
    this.failures = new TlsHandshakeFailures("grpc", registry);
  }

  @Override
  public ServerBuilder<?> onCreated(BeanCreatedEvent<ServerBuilder<?>> event) {
    if (!(event.getBean() instanceof NettyServerBuilder netty)) {
      throw new IllegalStateException("TLS needs gRPC's Netty server, found "
          + event.getBean().getClass().getName());
    }
    try {
      return netty.protocolNegotiator(new GrpcTlsNegotiator(tls.grpcContext(), failures));
    } catch (SSLException e) {
      throw new IllegalStateException("cannot set up TLS on the gRPC port: " + e.getMessage(), e);
    }
  }
}
