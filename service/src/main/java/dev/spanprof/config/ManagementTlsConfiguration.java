package dev.spanprof.config;

import io.micronaut.context.annotation.ConfigurationProperties;

/** {@code spanprof.management.tls.*}: TLS on the metrics and health listener (9464). */
@ConfigurationProperties(ManagementTlsConfiguration.PREFIX)
public final class ManagementTlsConfiguration extends TlsFiles {

  public static final String PREFIX = ManagementConfiguration.PREFIX + ".tls";

  @Override
  public String prefix() {
    return PREFIX;
  }
}
