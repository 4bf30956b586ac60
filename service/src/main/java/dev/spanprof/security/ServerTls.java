package dev.spanprof.security;

import dev.spanprof.config.TlsConfiguration;
import dev.spanprof.config.TlsFiles;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.util.AdvancedTlsX509KeyManager;
import io.grpc.util.AdvancedTlsX509TrustManager;
import io.micronaut.context.annotation.Requires;
import io.netty.handler.codec.http2.Http2SecurityUtil;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.io.File;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receivers' TLS: the certificate and key, and with a client CA the trust for mutual TLS,
 * held by gRPC's advanced TLS managers, which each handshake asks. Every
 * {@code spanprof.tls.reload-interval} the files' modification times and sizes are compared with
 * the last read, and changed files read again: a certificate rotated on disk (cert-manager) is
 * served to the next connection. A new pair is taken only once its key belongs to its
 * certificate, so a rotation caught half written keeps the old pair until the next look. TLS 1.3
 * preferred, 1.2 the minimum, with the suites HTTP/2 allows (forward secrecy and AEAD only) on
 * every port, and no renegotiation asked by a client. Files missing or unreadable, or a key of
 * another certificate, stop the start with a message naming the key; later, the pair in force
 * stays and the failure is logged. The receivers' instance is a bean; the management port makes
 * its own from {@code spanprof.management.tls.*}.
 */
@Singleton
@Requires(property = TlsConfiguration.PREFIX + ".cert-file", pattern = ".+")
public final class ServerTls implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ServerTls.class);
  private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

  static {
    // Read once by the JDK's TLS at its first server handshake, which needs a ServerTls first.
    // TLS 1.2 lets a client ask to renegotiate, a cheap way to make the server do handshakes.
    System.setProperty("jdk.tls.rejectClientInitiatedRenegotiation", "true");
  }

  private final AdvancedTlsX509KeyManager keys = new AdvancedTlsX509KeyManager();
  private final AdvancedTlsX509TrustManager clients;
  private final ScheduledExecutorService reloads =
      Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "spanprof-tls-reload");
        thread.setDaemon(true);
        return thread;
      });

  private final File cert;
  private final File key;
  private final File ca;
  /** The files' modification times and sizes as last read. */
  private String identityStamp;
  private String trustStamp;

  @Inject
  ServerTls(TlsConfiguration configuration) {
    this((TlsFiles) configuration);
  }

  public ServerTls(TlsFiles files) {
    String prefix = files.prefix();
    cert = existing(files.getCertFile(), prefix + ".cert-file");
    key = existing(files.getKeyFile(), prefix + ".key-file");
    ca = files.getClientCaFile().isBlank() ? null
        : existing(files.getClientCaFile(), prefix + ".client-ca-file");
    try {
      loadIdentity();
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      throw new IllegalArgumentException(prefix + ".cert-file and .key-file ("
          + cert + ", " + key + "): " + e.getMessage(), e);
    }
    clients = ca == null ? null : trustManager();
    if (clients != null) {
      try {
        loadTrust();
      } catch (IOException | GeneralSecurityException | RuntimeException e) {
        throw new IllegalArgumentException(
            prefix + ".client-ca-file (" + ca + "): " + e.getMessage(), e);
      }
    }
    long periodMillis = Math.max(1, files.getReloadInterval().toMillis());
    reloads.scheduleWithFixedDelay(this::reloadChanged, periodMillis, periodMillis,
        TimeUnit.MILLISECONDS);
  }

  /** gRPC's file watcher says "Probably a bug." of a file that is not there: say what is wrong. */
  private static File existing(String path, String key) {
    File file = new File(path);
    if (!file.isFile()) {
      throw new IllegalArgumentException(key + ": " + path + " not found");
    }
    return file;
  }

  /** Checks a client's certificate chain against the CA only: clients have no host name. */
  private static AdvancedTlsX509TrustManager trustManager() {
    try {
      return AdvancedTlsX509TrustManager.newBuilder()
          .setVerification(AdvancedTlsX509TrustManager.Verification.CERTIFICATE_ONLY_VERIFICATION)
          .build();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot make a TLS trust manager: " + e.getMessage(), e);
    }
  }

  /** Reads again what changed; never throws, so the schedule goes on. */
  private void reloadChanged() {
    try {
      if (!stamp(cert, key).equals(identityStamp)) {
        loadIdentity();
        LOG.info("TLS certificate {} read again", cert);
      }
      if (ca != null && !stamp(ca).equals(trustStamp)) {
        loadTrust();
        LOG.info("TLS client CA {} read again", ca);
      }
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      LOG.warn("cannot read the TLS files again, keeping those in force: {}", e.toString());
    }
  }

  private void loadIdentity() throws IOException, GeneralSecurityException {
    String stamp = stamp(cert, key);
    AdvancedTlsX509KeyManager candidate = new AdvancedTlsX509KeyManager();
    candidate.updateIdentityCredentials(cert, key);
    String alias = candidate.chooseEngineServerAlias(null, null, null);
    PrivateKey privateKey = candidate.getPrivateKey(alias);
    X509Certificate[] chain = candidate.getCertificateChain(alias);
    checkKeyMatches(privateKey, chain[0]);
    keys.updateIdentityCredentials(chain, privateKey);
    identityStamp = stamp;
  }

  private void loadTrust() throws IOException, GeneralSecurityException {
    String stamp = stamp(ca);
    clients.updateTrustCredentials(ca);
    trustStamp = stamp;
  }

  private static String stamp(File... files) {
    StringBuilder stamp = new StringBuilder();
    for (File file : files) {
      stamp.append(file.lastModified()).append('/').append(file.length()).append(';');
    }
    return stamp.toString();
  }

  /** For the gRPC listener: HTTP/2 with ALPN, as gRPC needs it. */
  public SslContext grpcContext() throws SSLException {
    return GrpcSslContexts.configure(builder(), SslProvider.JDK).build();
  }

  /** For the HTTP listener: HTTP/1.1. */
  public SslContext httpContext() throws SSLException {
    return builder().sslProvider(SslProvider.JDK).build();
  }

  private SslContextBuilder builder() {
    SslContextBuilder builder = SslContextBuilder.forServer(keys).protocols(PROTOCOLS)
        .ciphers(Http2SecurityUtil.CIPHERS, SupportedCipherSuiteFilter.INSTANCE);
    if (clients != null) {
      builder.trustManager(clients).clientAuth(ClientAuth.REQUIRE);
    }
    return builder;
  }

  /** Stops looking at the files. */
  @PreDestroy
  @Override
  public void close() {
    reloads.shutdownNow();
  }

  /** Signs with the key and verifies with the certificate: a key of another certificate fails. */
  private static void checkKeyMatches(PrivateKey key, X509Certificate certificate)
      throws GeneralSecurityException {
    String algorithm = key.getAlgorithm().equals("EC") ? "SHA256withECDSA" : "SHA256with"
        + key.getAlgorithm();
    byte[] probe = "spanprof".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    Signature signer = Signature.getInstance(algorithm);
    signer.initSign(key);
    signer.update(probe);
    byte[] signature = signer.sign();
    Signature verifier = Signature.getInstance(algorithm);
    verifier.initVerify(certificate.getPublicKey());
    verifier.update(probe);
    if (!verifier.verify(signature)) {
      throw new GeneralSecurityException("the key does not belong to the certificate");
    }
  }
}
