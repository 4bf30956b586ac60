package dev.spanprof.export;

import dev.spanprof.config.ExportConfiguration;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;

/** TLS material from the PEM files of {@code spanprof.export.*}. */
final class Tls {

  private Tls() {}

  /** An SSL context trusting the CA file (or the JVM's store) with the client key, if any. */
  static SSLContext context(ExportConfiguration configuration) {
    try {
      TrustManagerFactory trust = null;
      if (!configuration.getCaFile().isBlank()) {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        int i = 0;
        for (Certificate certificate : certificates(configuration.getCaFile())) {
          store.setCertificateEntry("ca-" + i++, certificate);
        }
        trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(store);
      }
      KeyManagerFactory keys = null;
      if (!configuration.getCertFile().isBlank() && !configuration.getKeyFile().isBlank()) {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        store.setKeyEntry("client", privateKey(configuration.getKeyFile()), new char[0],
            certificates(configuration.getCertFile()).toArray(Certificate[]::new));
        keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(store, new char[0]);
      }
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys == null ? null : keys.getKeyManagers(),
          trust == null ? null : trust.getTrustManagers(), null);
      return context;
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

  private static Collection<? extends Certificate> certificates(String file)
      throws IOException, GeneralSecurityException {
    try (InputStream in = Files.newInputStream(Path.of(file))) {
      return CertificateFactory.getInstance("X.509").generateCertificates(in);
    }
  }

  /** A PKCS#8 PEM key ("BEGIN PRIVATE KEY"), RSA or EC. */
  private static PrivateKey privateKey(String file) throws IOException, GeneralSecurityException {
    String pem = Files.readString(Path.of(file));
    if (!pem.contains("BEGIN PRIVATE KEY")) {
      throw new GeneralSecurityException(file + " is not a PKCS#8 PEM key (BEGIN PRIVATE KEY); "
          + "convert it with: openssl pkcs8 -topk8 -nocrypt -in key.pem -out key-pkcs8.pem");
    }
    byte[] der = Base64.getMimeDecoder().decode(pem
        .replaceAll("-----(BEGIN|END) PRIVATE KEY-----", "").trim());
    PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
    try {
      return KeyFactory.getInstance("RSA").generatePrivate(spec);
    } catch (GeneralSecurityException notRsa) {
      return KeyFactory.getInstance("EC").generatePrivate(spec);
    }
  }
}
