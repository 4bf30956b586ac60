package dev.spanprof.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.testing.Meters;
import dev.spanprof.testing.Ports;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.ApplicationContext;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.exporter.otlp.trace.OtlpGrpcSpanExporter;
import jakarta.inject.Inject;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.support.ui.FluentWait;

/**
 * Mutual TLS on both receivers with real certificates (openssl) and the OpenTelemetry SDK's
 * exporters: with the CA's client certificate of the listed subject the spans are counted
 * without a token; without a certificate, with one of another CA or an expired one, refused and
 * not counted; another subject needs the token; a server certificate replaced on disk is served
 * to the next connection.
 */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TlsTest implements TestPropertyProvider {

  @TempDir static Path files;
  private Certificates certificates;
  @Inject ApplicationContext context;
  @Inject MeterRegistry registry;

  @Override
  public Map<String, String> getProperties() {
    try {
      certificates = new Certificates(files);
      Path served = certificates.file("served.crt");
      Path servedKey = certificates.file("served.key");
      Files.copy(certificates.file("server.crt"), served);
      Files.copy(certificates.file("server.key"), servedKey);
      return Map.of(
          "spanprof.tls.cert-file", served.toString(),
          "spanprof.tls.key-file", servedKey.toString(),
          "spanprof.tls.client-ca-file", certificates.file("ca.crt").toString(),
          "spanprof.tls.reload-interval", "200ms",
          "spanprof.auth.write-tokens-file",
          Files.writeString(certificates.file("write-tokens"), "w-token\n").toString(),
          "spanprof.auth.write-subjects", "CN=spanprof-test-client");
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void exporters_withTheClientCertificate_areCountedAndWithoutAreRefused() throws Exception {
    Meters meters = new Meters(registry);
    double grpcBefore = meters.count("spanprof.received.spans", "transport", "grpc");
    double httpBefore = meters.count("spanprof.received.spans", "transport", "http");
    byte[] ca = Files.readAllBytes(certificates.file("ca.crt"));
    String grpc = "https://localhost:" + Ports.of(context).grpc();
    String http = Ports.of(context).httpUrl("/v1/traces").replace("http://", "https://");

    assertThat(FrontDoorTest.export(OtlpGrpcSpanExporter.builder().setEndpoint(grpc)
        .setTrustedCertificates(ca).setClientTls(pem("client.key"), pem("client.crt")).build()))
        .isTrue();
    assertThat(FrontDoorTest.export(OtlpHttpSpanExporter.builder().setEndpoint(http)
        .setTrustedCertificates(ca).setClientTls(pem("client.key"), pem("client.crt")).build()))
        .isTrue();
    assertThat(FrontDoorTest.export(OtlpGrpcSpanExporter.builder().setEndpoint(grpc)
        .setTrustedCertificates(ca).build())).as("no client certificate").isFalse();
    assertThat(FrontDoorTest.export(OtlpHttpSpanExporter.builder().setEndpoint(http)
        .setTrustedCertificates(ca).setClientTls(pem("stranger.key"), pem("stranger.crt"))
        .build())).as("a client certificate of another CA").isFalse();
    assertThat(FrontDoorTest.export(OtlpGrpcSpanExporter.builder().setEndpoint(grpc)
        .setTrustedCertificates(ca).setClientTls(pem("expired.key"), pem("expired.crt"))
        .build())).as("an expired client certificate").isFalse();
    assertThat(FrontDoorTest.export(OtlpHttpSpanExporter.builder()
        .setEndpoint(http.replace("https://", "http://")).build())).as("plaintext").isFalse();

    assertThat(meters.count("spanprof.received.spans", "transport", "grpc") - grpcBefore)
        .isEqualTo(1);
    assertThat(meters.count("spanprof.received.spans", "transport", "http") - httpBefore)
        .isEqualTo(1);
    assertThat(meters.count("spanprof.tls.handshake.failures", "port", "grpc"))
        .as("no certificate, an expired one").isGreaterThanOrEqualTo(2);
    assertThat(meters.count("spanprof.tls.handshake.failures", "port", "http"))
        .as("another CA's certificate, plaintext").isGreaterThanOrEqualTo(1);
  }

  /**
   * The listed client's certificate stands in for a write token; another client the CA signed
   * needs the token.
   */
  @Test
  void listedSubject_standsInForAToken() throws Exception {
    Meters meters = new Meters(registry);
    double before = meters.count("spanprof.received.spans", "transport", "grpc");
    byte[] ca = Files.readAllBytes(certificates.file("ca.crt"));
    String grpc = "https://localhost:" + Ports.of(context).grpc();

    assertThat(FrontDoorTest.export(OtlpGrpcSpanExporter.builder().setEndpoint(grpc)
        .setTrustedCertificates(ca).setClientTls(pem("other-client.key"), pem("other-client.crt"))
        .build())).as("not listed, no token").isFalse();
    assertThat(FrontDoorTest.export(OtlpGrpcSpanExporter.builder().setEndpoint(grpc)
        .setTrustedCertificates(ca).setClientTls(pem("other-client.key"), pem("other-client.crt"))
        .addHeader("Authorization", "Bearer w-token").build())).as("with the token").isTrue();

    assertThat(meters.count("spanprof.received.spans", "transport", "grpc") - before)
        .isEqualTo(1);
    assertThat(meters.count("spanprof.auth.refused", "transport", "grpc", "reason", "missing"))
        .isPositive();
  }

  @Test
  void certificateReplacedOnDisk_isServedToTheNextConnection() throws Exception {
    BigInteger before = servedSerial();
    BigInteger next = certificate("server-next.crt").getSerialNumber();
    assertThat(before).isEqualTo(certificate("server.crt").getSerialNumber()).isNotEqualTo(next);

    Files.copy(certificates.file("server-next.key"), certificates.file("served.key"),
        StandardCopyOption.REPLACE_EXISTING);
    Files.copy(certificates.file("server-next.crt"), certificates.file("served.crt"),
        StandardCopyOption.REPLACE_EXISTING);

    BigInteger after = new FluentWait<>(this).withTimeout(Duration.ofSeconds(20))
        .pollingEvery(Duration.ofMillis(100)).ignoring(IOException.class)
        .until(test -> {
          BigInteger serial = servedSerialUnchecked();
          return serial.equals(next) ? serial : null;
        });
    assertThat(after).isEqualTo(next);
  }

  private BigInteger servedSerialUnchecked() {
    try {
      return servedSerial();
    } catch (Exception e) {
      throw new UncheckedIOException(new IOException(e));
    }
  }

  /** The serial of the certificate the HTTP port presents to a new connection (mutual TLS). */
  private BigInteger servedSerial() throws Exception {
    SSLContext ssl = ClientKeys.context(certificates.file("ca.crt"),
        certificates.file("client.key"), certificates.file("client.crt"));
    try (SSLSocket socket = (SSLSocket) ssl.getSocketFactory()
        .createSocket("localhost", Ports.of(context).http())) {
      socket.startHandshake();
      return ((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSerialNumber();
    }
  }

  private X509Certificate certificate(String name) throws Exception {
    try (FileInputStream in = new FileInputStream(certificates.file(name).toFile())) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }

  private byte[] pem(String name) throws IOException {
    return Files.readAllBytes(certificates.file(name));
  }
}
