package dev.spanprof.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.testing.SpanprofProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The front door applies to the peers of a fleet: two replicas serving TLS with read tokens ask
 * each other over https, checking the peer's certificate by the CA and presenting the read token
 * of {@code spanprof.query.peer-token-file}; a peer that refuses the token is named as missing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FleetFrontDoorProcessTest {

  private static final Duration AWAIT = Duration.ofSeconds(30);

  @TempDir static Path files;
  private SpanprofProcess first;
  private SpanprofProcess second;
  private Path secondReadTokens;
  private HttpClient client;

  @BeforeAll
  void start() throws Exception {
    Certificates certificates = new Certificates(files);
    Path readTokens = Files.writeString(files.resolve("read.tokens"), "reader\npeer\n");
    secondReadTokens = Files.writeString(files.resolve("second-read.tokens"), "reader\npeer\n");
    Path peerToken = Files.writeString(files.resolve("peer.token"), "peer\n");
    int firstPort = SpanprofProcess.freePort();
    int secondPort = SpanprofProcess.freePort();
    String peers = "https://localhost:" + firstPort + ",https://127.0.0.1:" + secondPort;
    Map<String, String> tls = Map.of(
        "spanprof.tls.cert-file", certificates.file("server.crt").toString(),
        "spanprof.tls.key-file", certificates.file("server.key").toString(),
        "spanprof.query.peers", peers,
        "spanprof.query.peer-token-file", peerToken.toString(),
        "spanprof.query.peer-ca-file", certificates.file("ca.crt").toString());
    HashMap<String, String> firstProperties = new HashMap<>(tls);
    firstProperties.put("spanprof.auth.read-tokens-file", readTokens.toString());
    HashMap<String, String> secondProperties = new HashMap<>(tls);
    secondProperties.put("spanprof.auth.read-tokens-file", secondReadTokens.toString());
    first = SpanprofProcess.start("first", "160m", firstPort, firstProperties);
    second = SpanprofProcess.start("second", "160m", secondPort, secondProperties);
    first.awaitStarted();
    second.awaitStarted();
    client = HttpClient.newBuilder().sslContext(ClientKeys.context(certificates.file("ca.crt"),
        certificates.file("client.key"), certificates.file("client.crt"))).build();
  }

  @AfterAll
  void stop() throws InterruptedException {
    if (first != null) {
      first.close();
    }
    if (second != null) {
      second.close();
    }
  }

  @Test
  void peersAskedOverTlsWithTheReadToken_thenNamedWhenTheTokenIsRevoked() throws Exception {
    HttpResponse<String> answer = ranking("reader");
    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(answer.headers().firstValue("Spanprof-Missing-Peers")).isEmpty();
    assertThat(ranking("nobody").statusCode()).isEqualTo(401);

    // The second replica no longer takes the first's peer token (files are read again in a
    // second): the first's answers name it, with the refusal.
    Files.writeString(secondReadTokens, "reader\n");
    long deadline = System.nanoTime() + AWAIT.toNanos();
    String secondBase = "https://127.0.0.1:" + URI.create(second.httpBase()).getPort();
    while (ranking("reader").headers().firstValue("Spanprof-Missing-Peers").isEmpty()) {
      assertThat(System.nanoTime()).as("the revoked token refused within %s", AWAIT)
          .isLessThan(deadline);
    }
    assertThat(ranking("reader").headers().firstValue("Spanprof-Missing-Peers"))
        .hasValue(secondBase + " (HTTP 401)");
  }

  private HttpResponse<String> ranking(String token) throws Exception {
    URI uri = URI.create("https://localhost:" + URI.create(first.httpBase()).getPort()
        + "/api/v1/ranking");
    return client.send(HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + token)
        .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
  }
}
