package dev.spanprof.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.assembly.ManualTimeSource;
import dev.spanprof.assembly.TraceAssembler;
import dev.spanprof.span.TraceId;
import dev.spanprof.testing.GrpcOtlpReceiver;
import dev.spanprof.testing.Otlp;
import dev.spanprof.testing.Ports;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.env.Environment;
import io.micronaut.runtime.server.EmbeddedServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Forwarding over TLS to a next hop with a self-signed certificate (made by openssl): it works
 * with the certificate configured as the CA, and fails with a message saying what to configure
 * without it.
 */
class ForwardingTlsTest {

  @TempDir static Path directory;
  private static Path certificate;
  private static Path key;

  @BeforeAll
  static void selfSignedCertificate() throws Exception {
    certificate = directory.resolve("cert.pem");
    key = directory.resolve("key.pem");
    Process openssl = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048",
        "-nodes", "-keyout", key.toString(), "-out", certificate.toString(), "-days", "1",
        "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1")
        .redirectErrorStream(true).start();
    String output = new String(openssl.getInputStream().readAllBytes());
    assertThat(openssl.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(openssl.exitValue()).as(output).isZero();
    assertThat(Files.size(certificate)).isPositive();
  }

  @Test
  void caConfigured_spansArrive() throws Exception {
    try (GrpcOtlpReceiver receiver = GrpcOtlpReceiver.tls(certificate.toFile(), key.toFile());
        EmbeddedServer server = start(receiver, certificate.toString())) {
      sendAndComplete(server, new TraceId(0x7, 1));

      assertThat(receiver.await(span -> true, 2, Duration.ofSeconds(30))).hasSize(2);
    }
  }

  @Test
  void noCa_failsWithAClearMessageAndIsCounted() throws Exception {
    try (GrpcOtlpReceiver receiver = GrpcOtlpReceiver.tls(certificate.toFile(), key.toFile())) {
      EmbeddedServer server = start(receiver, "");
      Forwarder forwarder = server.getApplicationContext().getBean(Forwarder.class);
      MeterRegistry registry = server.getApplicationContext().getBean(MeterRegistry.class);
      // Registered at start, so the failure still counts when it is met in the shutdown drain,
      // after the context has closed the registry.
      assertThat(registry.get("spanprof.export.failed.spans").tag("reason", "tls").counter().count())
          .isZero();
      sendAndComplete(server, new TraceId(0x8, 1));

      // Closing drains the queue: the one attempt fails its handshake and is not retried.
      server.getApplicationContext().close();

      assertThat(receiver.requests()).isEmpty();
      assertThat(forwarder.lastError()).startsWith("the TLS handshake with the next hop failed")
          .contains("set spanprof.export.ca-file");
      assertThat(registry.get("spanprof.export.failed.spans").tag("reason", "tls").counter().count())
          .isEqualTo(2);
    }
  }

  private static EmbeddedServer start(GrpcOtlpReceiver receiver, String caFile) {
    Map<String, Object> properties = new HashMap<>(Map.of(
        "test.time", "manual",
        "spanprof.export.endpoint", "https://localhost:" + receiver.port(),
        "spanprof.export.flush-interval", "10ms"));
    if (!caFile.isEmpty()) {
      properties.put("spanprof.export.ca-file", caFile);
    }
    return ApplicationContext.run(EmbeddedServer.class, properties, Environment.TEST);
  }

  private static void sendAndComplete(EmbeddedServer server, TraceId trace) throws Exception {
    ApplicationContext context = server.getApplicationContext();
    HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create(Ports.of(context).httpUrl("/v1/traces")))
            .header("Content-Type", "application/x-protobuf")
            .POST(HttpRequest.BodyPublishers.ofByteArray(
                Otlp.request("svc", Otlp.span(trace, 1), Otlp.span(trace, 2)).toByteArray()))
            .build(),
        HttpResponse.BodyHandlers.ofString());
    context.getBean(ManualTimeSource.class).advance(Duration.ofSeconds(5));
    context.getBean(TraceAssembler.class).sweep();
  }
}
