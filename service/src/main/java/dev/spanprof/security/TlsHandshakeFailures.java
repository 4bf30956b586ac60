package dev.spanprof.security;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.AttributeKey;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Behind a listener's TLS handler: a failed handshake (no client certificate, one of another CA,
 * an expired one, a protocol or suite refused) is counted in
 * spanprof_tls_handshake_failures_total{port} and logged in one line, and its exception goes no
 * further, where Netty would log it with a stack trace of up to 30 lines each time.
 */
@ChannelHandler.Sharable
public final class TlsHandshakeFailures extends ChannelInboundHandlerAdapter {

  private static final Logger LOG = LoggerFactory.getLogger(TlsHandshakeFailures.class);
  private static final AttributeKey<Boolean> COUNTED =
      AttributeKey.valueOf("spanprof.tls.handshake.failed");

  private final String port;
  private final Counter failures;

  /** @param port the listener, as the label says it: {@code grpc}, {@code http}, {@code management} */
  public TlsHandshakeFailures(String port, MeterRegistry registry) {
    this.port = port;
    this.failures = Counter.builder("spanprof.tls.handshake.failures")
        .description("TLS handshakes that failed, by listener")
        .tag("port", port)
        .register(registry);
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
    if (event instanceof SslHandshakeCompletionEvent completion && !completion.isSuccess()) {
      failed(ctx, completion.cause());
    }
    ctx.fireUserEventTriggered(event);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (tlsFailure(cause) == null) {
      ctx.fireExceptionCaught(cause);
      return;
    }
    failed(ctx, cause);
    ctx.close();
  }

  private void failed(ChannelHandlerContext ctx, Throwable cause) {
    if (ctx.channel().attr(COUNTED).setIfAbsent(Boolean.TRUE) != null) {
      return;
    }
    failures.increment();
    SSLException tls = tlsFailure(cause);
    LOG.info("TLS handshake from {} on the {} port failed: {}", ctx.channel().remoteAddress(),
        port, (tls == null ? cause : tls).getMessage());
  }

  private static SSLException tlsFailure(Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof SSLException tls) {
        return tls;
      }
    }
    return null;
  }
}
