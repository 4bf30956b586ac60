package dev.spanprof.ingest.http;

import dev.spanprof.config.ListenerLimits;
import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import io.micronaut.http.server.netty.NettyServerCustomizer;
import io.netty.channel.Channel;
import jakarta.inject.Singleton;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * At most {@code spanprof.ingest.max-connections} open connections on the HTTP port: a further
 * one is closed as it is accepted, so idle or slow clients cannot take every file descriptor.
 * Netty serves the connections below the limit on its event loops whatever they do, so they do
 * not hold up each other.
 */
@Singleton
final class HttpConnectionLimit
    implements BeanCreatedEventListener<NettyServerCustomizer.Registry> {

  private final int maxConnections;
  private final AtomicInteger open = new AtomicInteger();

  HttpConnectionLimit(ListenerLimits limits) {
    this.maxConnections = limits.getMaxConnections();
  }

  @Override
  public NettyServerCustomizer.Registry onCreated(
      BeanCreatedEvent<NettyServerCustomizer.Registry> event) {
    event.getBean().register(new NettyServerCustomizer() {
      @Override
      public NettyServerCustomizer specializeForChannel(Channel channel, ChannelRole role) {
        if (role == ChannelRole.CONNECTION) {
          admit(channel);
        }
        return this;
      }
    });
    return event.getBean();
  }

  private void admit(Channel channel) {
    if (open.incrementAndGet() > maxConnections) {
      open.decrementAndGet();
      channel.close();
      return;
    }
    channel.closeFuture().addListener(closed -> open.decrementAndGet());
  }
}
