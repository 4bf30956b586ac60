package dev.spanprof.security;

import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import io.micronaut.http.server.netty.NettyServerCustomizer;
import io.netty.channel.Channel;
import io.netty.handler.ssl.SslContext;
import jakarta.inject.Singleton;
import javax.net.ssl.SSLException;

/**
 * The HTTP port (OTLP/HTTP, the API and the UI) serves TLS only when a certificate is set: each
 * connection's pipeline starts with a TLS handler, before Micronaut's HTTP codec.
 */
@Singleton
@Requires(beans = ServerTls.class)
final class HttpServerTls implements BeanCreatedEventListener<NettyServerCustomizer.Registry> {

  private final SslContext context;
  private final TlsHandshakeFailures failures;

  HttpServerTls(ServerTls tls, MeterRegistry registry) {
    this.failures = new TlsHandshakeFailures("http", registry);
    try {
      this.context = tls.httpContext();
    } catch (SSLException e) {
      throw new IllegalStateException("cannot set up TLS on the HTTP port: " + e.getMessage(), e);
    }
  }

  @Override
  public NettyServerCustomizer.Registry onCreated(
      BeanCreatedEvent<NettyServerCustomizer.Registry> event) {
    event.getBean().register(new Listener());
    return event.getBean();
  }

  /** Specialises for each accepted connection. */
  private final class Listener implements NettyServerCustomizer {
    @Override
    public NettyServerCustomizer specializeForChannel(Channel channel, ChannelRole role) {
      return role == ChannelRole.CONNECTION ? new Connection(channel) : this;
    }
  }

  private final class Connection implements NettyServerCustomizer {
    private final Channel channel;

    Connection(Channel channel) {
      this.channel = channel;
    }

    @Override
    public void onInitialPipelineBuilt() {
      channel.pipeline().addFirst("spanprof-tls", context.newHandler(channel.alloc()))
          .addAfter("spanprof-tls", "spanprof-tls-failures", failures);
    }
  }
}
