package dev.spanprof.config;

import io.micronaut.context.annotation.ConfigurationProperties;

/** {@code spanprof.tls.*}: TLS on the receivers and the query API (gRPC 4317 and HTTP 4318). */
@ConfigurationProperties(TlsConfiguration.PREFIX)
public final class TlsConfiguration extends TlsFiles {

  public static final String PREFIX = "spanprof.tls";

  @Override
  public String prefix() {
    return PREFIX;
  }
}
