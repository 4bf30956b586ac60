package dev.spanprof.security;

import io.grpc.Grpc;
import io.grpc.ServerCall;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.server.netty.NettyHttpRequest;
import io.netty.handler.ssl.SslHandler;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.security.auth.x500.X500Principal;

/** The subject of the client certificate mutual TLS verified on a request's connection. */
public final class ClientCertificates {

  private ClientCertificates() {}

  /** For HTTP: from the TLS handler spanprof put first in the connection's pipeline. */
  @Nullable
  public static X500Principal subject(HttpRequest<?> request) {
    if (!(request instanceof NettyHttpRequest<?> netty)) {
      return null;
    }
    SslHandler tls = netty.getChannelHandlerContext().pipeline().get(SslHandler.class);
    return tls == null ? null : subject(tls.engine().getSession());
  }

  /** For gRPC: from the call's transport. */
  @Nullable
  static X500Principal subject(ServerCall<?, ?> call) {
    return subject(call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION));
  }

  @Nullable
  private static X500Principal subject(@Nullable SSLSession session) {
    if (session == null) {
      return null;
    }
    try {
      Certificate[] chain = session.getPeerCertificates();
      return chain.length > 0 && chain[0] instanceof X509Certificate certificate
          ? certificate.getSubjectX500Principal() : null;
    } catch (SSLPeerUnverifiedException e) {
      return null;
    }
  }
}
