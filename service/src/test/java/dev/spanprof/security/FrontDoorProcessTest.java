package dev.spanprof.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.spanprof.testing.SpanprofProcess;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The front door of a real spanprof process (its own JVM, as the jar runs), every protection on:
 * TLS and mutual TLS, write and read tokens, one CORS origin, TLS and a token on the management
 * port. Tried as an attacker on the network would: the trailing-slash path, TLS 1.2 suites
 * without forward secrecy, a client's renegotiation, the management port in plaintext and
 * without a token; and the start-up log says what is on.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FrontDoorProcessTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(60);
  private static final String ORIGIN = "https://app.example.com";

  @TempDir static Path files;
  private Certificates certificates;
  private SpanprofProcess process;
  private List<String> startLog;
  private int http;
  private int management;
  private SSLContext client;

  @BeforeAll
  void start() throws Exception {
    certificates = new Certificates(files);
    Path write = Files.writeString(files.resolve("write.tokens"), "w1\n");
    Path read = Files.writeString(files.resolve("read.tokens"), "r1\n");
    Path metrics = Files.writeString(files.resolve("metrics.tokens"), "m1\n");
    String cert = certificates.file("server.crt").toString();
    String key = certificates.file("server.key").toString();
    process = SpanprofProcess.start("front-door", "256m", Map.of(
        "spanprof.tls.cert-file", cert,
        "spanprof.tls.key-file", key,
        "spanprof.tls.client-ca-file", certificates.file("ca.crt").toString(),
        "spanprof.auth.write-tokens-file", write.toString(),
        "spanprof.auth.read-tokens-file", read.toString(),
        "spanprof.ingest.cors.allowed-origins", ORIGIN,
        "spanprof.management.tls.cert-file", cert,
        "spanprof.management.tls.key-file", key,
        "spanprof.management.read-tokens-file", metrics.toString())).awaitStarted();
    startLog = process.startLog();
    http = process.httpPort();
    management = process.managementPort();
    client = ClientKeys.context(certificates.file("ca.crt"), certificates.file("client.key"),
        certificates.file("client.crt"));
  }

  @AfterAll
  void stop() throws InterruptedException {
    if (process != null) {
      process.close();
    }
  }

  @Test
  void startLog_saysTheSchemeServedAndEveryProtection() {
    assertThat(startLog).anySatisfy(line -> assertThat(line)
        .contains("on https://", ":" + http + "/", "grpcs://", "https://127.0.0.1:" + management));
    assertThat(startLog).anySatisfy(line -> assertThat(line).contains(
        "front door: TLS on, mutual TLS on, write tokens on, read tokens on",
        "CORS origins " + ORIGIN, "management port TLS on, metrics tokens on"));
    assertThat(startLog).noneMatch(line -> line.contains("Server Running: http://"));
  }

  @Test
  void trailingSlash_needsTheWriteTokenAndTheOrigin() throws Exception {
    assertThat(post("/v1/traces/", null, null)).startsWith("HTTP/1.1 401");
    assertThat(post("/v1/traces/", "w1", "https://evil.example")).startsWith("HTTP/1.1 403");
    assertThat(post("/v1/traces/", "w1", ORIGIN)).startsWith("HTTP/1.1 200");
  }

  @Test
  void tls12_suitesWithoutForwardSecrecyRefused_ecdheServed() throws Exception {
    Throwable plainRsa = catchThrowable(
        () -> handshake("TLS_RSA_WITH_AES_128_GCM_SHA256", "TLS_RSA_WITH_AES_128_CBC_SHA"));
    assertThat(plainRsa).as("no suite without forward secrecy").isInstanceOf(IOException.class);
    try (SSLSocket socket = handshake("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256")) {
      assertThat(socket.getSession().getCipherSuite())
          .isEqualTo("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256");
    }
  }

  @Test
  void tls12_clientRenegotiation_refused() throws Exception {
    try (SSLSocket socket = handshake("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256")) {
      Throwable renegotiation = catchThrowable(() -> {
        socket.startHandshake();
        OutputStream out = socket.getOutputStream();
        out.write("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        if (socket.getInputStream().read() == -1) {
          throw new IOException("closed");
        }
      });
      assertThat(renegotiation).isInstanceOf(IOException.class);
    }
  }

  @Test
  void managementPort_tlsOnly_metricsNeedAToken_probesOpen() throws Exception {
    assertThat(plaintextAnswer(management, "/health/liveness")).doesNotStartWith("HTTP/1.1 200");
    assertThat(get(management, "/health/liveness", null)).startsWith("HTTP/1.1 200");
    String refused = get(management, "/metrics", null);
    assertThat(refused).startsWith("HTTP/1.1 401")
        .containsIgnoringCase("WWW-Authenticate: Bearer realm=\"spanprof\"");
    assertThat(get(management, "/metrics", "r1")).startsWith("HTTP/1.1 401");
    assertThat(get(management, "/metrics", "m1")).startsWith("HTTP/1.1 200")
        .contains("spanprof_auth_tokens{kind=\"metrics\"} 1.0");
  }

  private String post(String path, String token, String origin) throws Exception {
    String body = "{}";
    StringBuilder request = new StringBuilder("POST " + path + " HTTP/1.1\r\nHost: localhost\r\n"
        + "Connection: close\r\nContent-Type: application/json\r\nContent-Length: "
        + body.length() + "\r\n");
    if (token != null) {
      request.append("Authorization: Bearer ").append(token).append("\r\n");
    }
    if (origin != null) {
      request.append("Origin: ").append(origin).append("\r\n");
    }
    request.append("\r\n").append(body);
    return exchange(http, request.toString());
  }

  private String get(int port, String path, String token) throws Exception {
    return exchange(port, "GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
        + (token == null ? "" : "Authorization: Bearer " + token + "\r\n") + "\r\n");
  }

  private String exchange(int port, String request) throws Exception {
    try (SSLSocket socket = (SSLSocket) client.getSocketFactory().createSocket("localhost", port)) {
      socket.setSoTimeout((int) TIMEOUT.toMillis());
      socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
    }
  }

  private static String plaintextAnswer(int port, String path) throws IOException {
    try (Socket socket = new Socket("localhost", port)) {
      socket.setSoTimeout((int) TIMEOUT.toMillis());
      socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\n"
          + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
    } catch (IOException reset) {
      return "";
    }
  }

  /** A TLS 1.2 connection to the HTTP port offering only {@code suites}, handshake done. */
  private SSLSocket handshake(String... suites) throws Exception {
    SSLSocket socket = (SSLSocket) client.getSocketFactory().createSocket("localhost", http);
    socket.setSoTimeout((int) TIMEOUT.toMillis());
    socket.setEnabledProtocols(new String[] {"TLSv1.2"});
    socket.setEnabledCipherSuites(suites);
    try {
      socket.startHandshake();
      return socket;
    } catch (IOException e) {
      socket.close();
      throw e;
    }
  }
}
