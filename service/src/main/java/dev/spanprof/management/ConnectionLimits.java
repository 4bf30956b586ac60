package dev.spanprof.management;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * First in each management connection's pipeline, where it sees raw bytes: closes the connection
 * when its first request has not arrived whole within {@code requestTimeout} of the connection's
 * opening, or a later one within {@code requestTimeout} of its first byte (a client that sends
 * nothing, half a request, or one byte a second), when it stays idle between requests for
 * {@code idleTimeout}, or when it would be one more than {@code maxConnections}. So no client can
 * hold the listener Kubernetes probes for longer than the request timeout.
 *
 * <p>All of it runs on the connection's event loop, so its state needs no locks.
 */
final class ConnectionLimits extends ChannelInboundHandlerAdapter {

  private final long requestTimeoutNanos;
  private final long idleTimeoutNanos;
  private final int maxConnections;
  private final AtomicInteger connections;
  private boolean receiving;
  private ScheduledFuture<?> timer;

  ConnectionLimits(Duration requestTimeout, Duration idleTimeout, int maxConnections,
      AtomicInteger connections) {
    this.requestTimeoutNanos = requestTimeout.toNanos();
    this.idleTimeoutNanos = idleTimeout.toNanos();
    this.maxConnections = maxConnections;
    this.connections = connections;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    if (connections.incrementAndGet() > maxConnections) {
      ctx.close();
      return;
    }
    // A prober connects to ask at once: a connection that opens and says nothing is no client.
    receiving = true;
    closeIn(ctx, requestTimeoutNanos);
    super.channelActive(ctx);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    connections.decrementAndGet();
    cancel();
    super.channelInactive(ctx);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    if (!receiving) {
      receiving = true;
      closeIn(ctx, requestTimeoutNanos);
    }
    super.channelRead(ctx, msg);
  }

  /** A whole request arrived: no timeout while it is answered. */
  void requestReceived() {
    cancel();
  }

  /** Its answer is written: the connection may now idle until the next request. */
  void answered(ChannelHandlerContext ctx) {
    receiving = false;
    closeIn(ctx, idleTimeoutNanos);
  }

  private void closeIn(ChannelHandlerContext ctx, long nanos) {
    cancel();
    timer = ctx.executor().schedule((Runnable) ctx::close, nanos, TimeUnit.NANOSECONDS);
  }

  private void cancel() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }
}
