package dev.spanprof.wiring;

import dev.spanprof.config.AuthConfiguration;
import dev.spanprof.config.CorsConfiguration;
import dev.spanprof.config.ManagementConfiguration;
import dev.spanprof.config.ManagementTlsConfiguration;
import dev.spanprof.config.TlsConfiguration;
import dev.spanprof.management.ManagementServer;
import io.micronaut.context.BeanProvider;
import io.micronaut.context.event.ApplicationEventListener;
import io.micronaut.grpc.server.GrpcEmbeddedServer;
import io.micronaut.http.server.netty.NettyEmbeddedServer;
import io.micronaut.runtime.server.event.ServerStartupEvent;
import jakarta.inject.Singleton;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says at start where spanprof listens, with the scheme it really serves (Micronaut's own line
 * says {@code http://} even with TLS on, since spanprof sets TLS up itself), and which of the
 * front door's protections are on, so that an operator reading the log sees what is open.
 */
@Singleton
final class FrontDoorLog implements ApplicationEventListener<ServerStartupEvent> {

  private static final Logger LOG = LoggerFactory.getLogger(FrontDoorLog.class);

  private final TlsConfiguration tls;
  private final AuthConfiguration auth;
  private final CorsConfiguration cors;
  private final ManagementConfiguration management;
  private final ManagementTlsConfiguration managementTls;
  private final BeanProvider<NettyEmbeddedServer> http;
  private final ManagementServer managementServer;

  FrontDoorLog(TlsConfiguration tls, AuthConfiguration auth, CorsConfiguration cors,
      ManagementConfiguration management, ManagementTlsConfiguration managementTls,
      BeanProvider<NettyEmbeddedServer> http, ManagementServer managementServer) {
    this.tls = tls;
    this.auth = auth;
    this.cors = cors;
    this.management = management;
    this.managementTls = managementTls;
    this.http = http;
    this.managementServer = managementServer;
  }

  /** On the gRPC server's start, the last of the three: every port is bound by then. */
  @Override
  public void onApplicationEvent(ServerStartupEvent event) {
    if (!(event.getSource() instanceof GrpcEmbeddedServer grpc)) {
      return;
    }
    String secure = tls.isEnabled() ? "s" : "";
    NettyEmbeddedServer httpServer = http.get();
    LOG.info("spanprof serving OTLP/HTTP, the API and the UI on http{}://{}:{}/, OTLP/gRPC and "
            + "ProfileService on grpc{}://{}:{}, metrics and health on http{}://{}:{}/",
        secure, httpServer.getHost(), httpServer.getPort(), secure, grpc.getHost(),
        grpc.getPort(), managementTls.isEnabled() ? "s" : "", management.getHost(),
        managementServer.port());
    LOG.info("front door: TLS {}, mutual TLS {}, write tokens {}, read tokens {}, "
            + "client subjects {}, CORS origins {}; management port TLS {}, metrics tokens {}",
        on(tls.isEnabled()), on(!tls.getClientCaFile().isBlank()),
        on(!auth.getWriteTokensFile().isBlank()), on(!auth.getReadTokensFile().isBlank()),
        auth.getWriteSubjects().size() + auth.getReadSubjects().size(),
        origins(cors.getAllowedOrigins()), on(managementTls.isEnabled()),
        on(!management.getReadTokensFile().isBlank()));
  }

  private static String on(boolean on) {
    return on ? "on" : "off";
  }

  private static String origins(List<String> origins) {
    return origins.isEmpty() ? "none" : String.join(" ", origins);
  }
}
