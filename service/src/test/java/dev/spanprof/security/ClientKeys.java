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

/** A client's key managers from a PEM PKCS#8 RSA key and its PEM certificate. */
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
}
