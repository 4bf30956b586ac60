package dev.spanprof.ingest.grpc;

import dev.spanprof.assembly.NamedDaemonThreads;
import dev.spanprof.config.ListenerLimits;
import io.grpc.ServerBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * At most {@code spanprof.ingest.max-connections} open connections on the gRPC port: a further
 * one is closed as it is accepted, before gRPC sees it. grpc-java has no hook on accepted
 * connections, so the listening channel is one of spanprof's, which counts what it accepts; it
 * is NIO, as grpc-netty's default is without the native transports, and so are the event loops
 * it then needs of its own (one acceptor, Netty's default number of workers).
 */
@Singleton
final class GrpcConnectionLimit implements BeanCreatedEventListener<ServerBuilder<?>> {

  private final int maxConnections;
  private final AtomicInteger open = new AtomicInteger();
  private final EventLoopGroup boss =
      new NioEventLoopGroup(1, new NamedDaemonThreads("spanprof-grpc-accept-"));
  private final EventLoopGroup workers =
      new NioEventLoopGroup(0, new NamedDaemonThreads("spanprof-grpc-io-"));

  GrpcConnectionLimit(ListenerLimits limits) {
    this.maxConnections = limits.getMaxConnections();
  }

  @Override
  public ServerBuilder<?> onCreated(BeanCreatedEvent<ServerBuilder<?>> event) {
    if (!(event.getBean() instanceof NettyServerBuilder netty)) {
      return event.getBean();
    }
    return netty.channelFactory(CountingServerChannel::new)
        .bossEventLoopGroup(boss)
        .workerEventLoopGroup(workers);
  }

  @PreDestroy
  void shutdown() {
    boss.shutdownGracefully();
    workers.shutdownGracefully();
  }

  /** A listening channel that closes what it accepts beyond the limit. */
  private final class CountingServerChannel extends NioServerSocketChannel {
    @Override
    protected int doReadMessages(List<Object> accepted) throws Exception {
      int from = accepted.size();
      int read = super.doReadMessages(accepted);
      for (int i = accepted.size() - 1; i >= from; i--) {
        Channel child = (Channel) accepted.get(i);
        if (open.incrementAndGet() > maxConnections) {
          open.decrementAndGet();
          accepted.remove(i);
          child.unsafe().closeForcibly();
          read--;
        } else {
          child.closeFuture().addListener(closed -> open.decrementAndGet());
        }
      }
      return read;
    }
  }
}
