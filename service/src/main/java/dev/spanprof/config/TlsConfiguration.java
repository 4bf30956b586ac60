package dev.spanprof.config;

import io.micronaut.context.annotation.ConfigurationProperties;
import java.time.Duration;

/**
 * {@code spanprof.tls.*}: TLS on the receivers and the query API (gRPC 4317 and HTTP 4318).
 * With a certificate and key, both ports serve TLS only; with a client CA too, mutual TLS.
 */
@ConfigurationProperties(TlsConfiguration.PREFIX)
public final class TlsConfiguration {

  public static final String PREFIX = "spanprof.tls";

  private String certFile = "";
  private String keyFile = "";
  private String clientCaFile = "";
  private Duration reloadInterval = Duration.ofSeconds(5);

  /** PEM certificate chain, the server's first; empty: plaintext. */
  public String getCertFile() {
    return certFile;
  }

  public void setCertFile(String certFile) {
    this.certFile = certFile == null ? "" : certFile;
  }

  /** PEM PKCS#8 private key of the certificate. */
  public String getKeyFile() {
    return keyFile;
  }

  public void setKeyFile(String keyFile) {
    this.keyFile = keyFile == null ? "" : keyFile;
  }

  /** PEM CA bundle: clients must present a certificate it signed (mutual TLS); empty: none. */
  public String getClientCaFile() {
    return clientCaFile;
  }

  public void setClientCaFile(String clientCaFile) {
    this.clientCaFile = clientCaFile == null ? "" : clientCaFile;
  }

  /** How often the files are read again, so a rotated certificate is served without a restart. */
  public Duration getReloadInterval() {
    return reloadInterval;
  }

  public void setReloadInterval(Duration reloadInterval) {
    this.reloadInterval = reloadInterval;
  }

  public boolean isEnabled() {
    return !certFile.isBlank();
  }
}
