package dev.spanprof.security;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * TLS for spanprof's own connections as a client (forwarding to the next hop, asking peers), from
 * PEM files: the servers trusted by a CA bundle (or the JVM's store), and a client certificate
 * presented when one is given, for servers that ask for it (mutual TLS).
 */
public final class ClientTls {

  private ClientTls() {}

  /**
   * @param caFile PEM CA bundle; blank: the JVM's trust store
   * @param certFile PEM client certificate chain; blank: none presented
   * @param keyFile its PKCS#8 PEM key
   */
  public static SSLContext context(String caFile, String certFile, String keyFile)
      throws IOException, GeneralSecurityException {
    return context(caFile, certFile, keyFile, trust(caFile));
  }

  /**
   * As {@link #context}, but a server is accepted when the CA vouches for its certificate and the
   * certificate names {@code name}, whatever address it was reached at: the replicas behind a
   * headless Service are reached by the addresses its name resolves to, and each holds a
   * certificate for the Service's name.
   */
  public static SSLContext contextFor(String name, String caFile, String certFile, String keyFile)
      throws IOException, GeneralSecurityException {
    X509TrustManager trust = null;
    for (TrustManager manager : trust(caFile).getTrustManagers()) {
      if (manager instanceof X509TrustManager x509) {
        trust = x509;
      }
    }
    if (trust == null) {
      throw new GeneralSecurityException("no X.509 trust manager for " + caFile);
    }
    return context(caFile, certFile, keyFile, new NamedServerTrust(trust, name));
  }

  private static SSLContext context(String caFile, String certFile, String keyFile,
      Object trust) throws IOException, GeneralSecurityException {
    KeyManagerFactory keys = null;
    if (!isBlank(certFile) && !isBlank(keyFile)) {
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      store.setKeyEntry("client", privateKey(keyFile), new char[0],
          certificates(certFile).toArray(Certificate[]::new));
      keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(store, new char[0]);
    }
    TrustManager[] trustManagers = trust instanceof TrustManagerFactory factory
        ? factory.getTrustManagers() : new TrustManager[] {(TrustManager) trust};
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keys == null ? null : keys.getKeyManagers(), trustManagers, null);
    return context;
  }

  private static TrustManagerFactory trust(String caFile)
      throws IOException, GeneralSecurityException {
    TrustManagerFactory trust =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    if (isBlank(caFile)) {
      trust.init((KeyStore) null);
      return trust;
    }
    KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
    store.load(null, null);
    int i = 0;
    for (Certificate certificate : certificates(caFile)) {
      store.setCertificateEntry("ca-" + i++, certificate);
    }
    trust.init(store);
    return trust;
  }

  private static boolean isBlank(String value) {
    return value == null || value.isBlank();
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

  /**
   * Trusts a server whose chain the CA vouches for and whose certificate has {@code name} among
   * its DNS names, instead of the address dialled. Being an extended trust manager, JSSE leaves
   * the name check to it rather than checking the address.
   */
  static final class NamedServerTrust extends X509ExtendedTrustManager {
    private static final int DNS_NAME = 2;

    private final X509TrustManager chains;
    private final String name;

    NamedServerTrust(X509TrustManager chains, String name) {
      this.chains = chains;
      this.name = name.toLowerCase(Locale.ROOT);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      chains.checkServerTrusted(chain, authType);
      if (!names(chain[0]).contains(name)) {
        throw new CertificateException("the peer's certificate does not name " + name
            + " (it names " + names(chain[0]) + ")");
      }
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      checkServerTrusted(chain, authType);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      checkServerTrusted(chain, authType);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      throw new CertificateException("a client's trust manager checks no clients");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      checkClientTrusted(chain, authType);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      checkClientTrusted(chain, authType);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return chains.getAcceptedIssuers();
    }

    private static List<String> names(X509Certificate certificate)
        throws CertificateParsingException {
      Collection<List<?>> alternatives = certificate.getSubjectAlternativeNames();
      if (alternatives == null) {
        return List.of();
      }
      return alternatives.stream()
          .filter(entry -> entry.get(0) instanceof Integer type && type == DNS_NAME)
          .map(entry -> ((String) entry.get(1)).toLowerCase(Locale.ROOT))
          .toList();
    }
  }
}
