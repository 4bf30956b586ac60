package dev.spanprof.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.spanprof.config.QueryConfiguration;
import dev.spanprof.config.TlsConfiguration;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every peer asked, each within the timeout, with the peer token: one that answers, one that
 * refuses, one that never answers and one that is not there; the three that give no answer are
 * named, each with why.
 */
class PeerClientTest {

  @TempDir Path files;
  private final List<AutoCloseable> servers = new ArrayList<>();
  private final Map<String, String> authorizations = new ConcurrentHashMap<>();

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable server : servers) {
      server.close();
    }
  }

  @Test
  void peersAskedAtOnce_theSilentOnesNamedWithWhy() throws Exception {
    String answering = serve(200, "state");
    String refusing = serve(401, "no token");
    String silent = silent();
    String absent = "http://127.0.0.1:" + freePort();
    Path token = Files.writeString(files.resolve("peer.token"), "\n  secret-token  \nother\n");
    QueryConfiguration configuration = new QueryConfiguration();
    configuration.setPeers(List.of(answering, refusing, silent, absent));
    configuration.setPeerTimeout(Duration.ofMillis(500));
    configuration.setPeerTokenFile(token.toString());
    PeerClient client = new PeerClient(configuration, new TlsConfiguration());

    PeerClient.Replies replies = client.get("/api/v1/state?scope=local", "application/json");

    assertThat(replies.replies()).singleElement().satisfies(reply -> {
      assertThat(reply.peer()).isEqualTo(answering);
      assertThat(new String(reply.body(), StandardCharsets.UTF_8)).isEqualTo("state");
    });
    assertThat(replies.missingPeers()).containsExactly(refusing + " (HTTP 401)",
        silent + " (no answer within 500 ms)", absent + " (ConnectException)");
    // The token file's first line that holds one, read at the query.
    assertThat(authorizations.get(answering)).isEqualTo("Bearer secret-token");
  }

  @Test
  void withoutPeers_notEnabled() {
    assertThat(new PeerClient(new QueryConfiguration(), new TlsConfiguration()).enabled())
        .isFalse();
  }

  /** A peer that answers every GET with {@code status} and {@code body}. */
  private String serve(int status, String body) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(),
        0), 0);
    String base = "http://127.0.0.1:" + server.getAddress().getPort();
    server.createContext("/", exchange -> {
      String authorization = exchange.getRequestHeaders().getFirst("Authorization");
      if (authorization != null) {
        authorizations.put(base, authorization);
      }
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(status, bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    });
    server.start();
    servers.add(() -> server.stop(0));
    return base;
  }

  /** A peer that takes the connection and never answers. */
  private String silent() throws IOException {
    ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    List<Socket> accepted = new ArrayList<>();
    Thread acceptor = new Thread(() -> {
      try {
        while (true) {
          accepted.add(socket.accept());
        }
      } catch (IOException closed) {
        // the test is over
      }
    });
    acceptor.setDaemon(true);
    acceptor.start();
    servers.add(() -> {
      socket.close();
      for (Socket connection : accepted) {
        connection.close();
      }
    });
    return "http://127.0.0.1:" + socket.getLocalPort();
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
