package dev.spanprof.config;

import java.time.Duration;

/**
 * A TLS listener's PEM files, as {@code spanprof.tls.*} (the receivers and the API) and
 * {@code spanprof.management.tls.*} (metrics and health) give them: with a certificate and key
 * the listener serves TLS only; with a client CA too, mutual TLS.
 */
public abstract class TlsFiles {

  private String certFile = "";
  private String keyFile = "";
  private String clientCaFile = "";
  private Duration reloadInterval = Duration.ofSeconds(5);

  /** The prefix of the keys, so that a message can name the key at fault. */
  public abstract String prefix();

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
