package dev.spanprof.export;

import dev.spanprof.config.ExportConfiguration;
import dev.spanprof.security.ClientTls;
import java.io.IOException;
import java.security.GeneralSecurityException;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;

/** TLS material from the PEM files of {@code spanprof.export.*}. */
final class Tls {

  private Tls() {}

  /** An SSL context trusting the CA file (or the JVM's store) with the client key, if any. */
  static SSLContext context(ExportConfiguration configuration) {
    try {
      return ClientTls.context(configuration.getCaFile(), configuration.getCertFile(),
          configuration.getKeyFile());
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException("cannot read the TLS files of "
          + ExportConfiguration.PREFIX + " (ca-file, cert-file, key-file): " + e.getMessage(), e);
    }
  }

  /** A clear message when {@code failure} is a TLS handshake problem; else null. */
  static String handshakeProblem(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof SSLHandshakeException) {
        return "the TLS handshake with the next hop failed (" + cause.getMessage() + "); if its "
            + "certificate is self-signed or from a private CA, set "
            + ExportConfiguration.PREFIX + ".ca-file to that CA's PEM file";
      }
    }
    return null;
  }
}
