package dev.spanprof.security;

import io.grpc.netty.GrpcHttp2ConnectionHandler;
import io.grpc.netty.InternalProtocolNegotiator;
import io.grpc.netty.InternalProtocolNegotiators;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerAdapter;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.SslContext;
import io.netty.util.AsciiString;

/**
 * gRPC's own server TLS negotiation, with {@link TlsHandshakeFailures} behind it: gRPC's builder
 * has no other place in a connection's pipeline for a handler of ours.
 */
final class GrpcTlsNegotiator implements InternalProtocolNegotiator.ProtocolNegotiator {

  private final InternalProtocolNegotiator.ProtocolNegotiator tls;
  private final TlsHandshakeFailures failures;

  GrpcTlsNegotiator(SslContext context, TlsHandshakeFailures failures) {
    this.tls = InternalProtocolNegotiators.serverTls(context);
    this.failures = failures;
  }

  @Override
  public AsciiString scheme() {
    return tls.scheme();
  }

  @Override
  public ChannelHandler newHandler(GrpcHttp2ConnectionHandler grpcHandler) {
    ChannelHandler negotiation = tls.newHandler(grpcHandler);
    // Put in place of itself: gRPC's negotiation, then the observer of its failures.
    return new ChannelHandlerAdapter() {
      @Override
      public void handlerAdded(ChannelHandlerContext ctx) {
        ctx.pipeline().addAfter(ctx.name(), null, failures);
        ctx.pipeline().replace(this, null, negotiation);
      }
    };
  }

  @Override
  public void close() {
    tls.close();
  }
}
