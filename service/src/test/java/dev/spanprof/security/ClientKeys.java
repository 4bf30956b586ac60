package dev.spanprof.security;

import java.io.FileInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** A TLS client's keys from PEM files: its key and certificate, and the CA it trusts. */
final class ClientKeys {

  private ClientKeys() {}

  static KeyManager[] of(Path keyFile, Path certFile) throws Exception {
    String pem = Files.readString(keyFile).replaceAll("-----[A-Z ]+-----", "")
        .replaceAll("\\s", "");
    PrivateKey key = KeyFactory.getInstance("RSA")
        .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(pem)));
    Certificate certificate;
    try (FileInputStream in = new FileInputStream(certFile.toFile())) {
      certificate = CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    store.setKeyEntry("client", key, new char[0], new Certificate[] {certificate});
    KeyManagerFactory factory =
        KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    factory.init(store, new char[0]);
    return factory.getKeyManagers();
  }

  /** Trusts {@code caFile} and presents the certificate (for mutual TLS). */
  static SSLContext context(Path caFile, Path keyFile, Path certFile) throws Exception {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    try (FileInputStream in = new FileInputStream(caFile.toFile())) {
      trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509")
          .generateCertificate(in));
    }
    TrustManagerFactory trustManagers =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trustManagers.init(trust);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(of(keyFile, certFile), trustManagers.getTrustManagers(), null);
    return context;
  }
}
