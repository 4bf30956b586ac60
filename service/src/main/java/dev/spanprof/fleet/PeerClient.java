package dev.spanprof.fleet;

import dev.spanprof.config.QueryConfiguration;
import dev.spanprof.config.TlsConfiguration;
import dev.spanprof.security.ClientTls;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Asks every peer ({@code spanprof.query.peers}) the same question at once, over HTTP, each within
 * {@code spanprof.query.peer-timeout}, presenting the read token of {@code
 * spanprof.query.peer-token-file}; over https it checks them by {@code
 * spanprof.query.peer-ca-file} and presents this replica's certificate ({@code spanprof.tls.*}),
 * so the front door applies to peers as to any reader. A peer that cannot be reached, answers with an error or not in
 * time is named among the missing, never silently left out.
 */
@Singleton
public final class PeerClient {

  /** The key of the client that checks a peer's certificate against its URL's host. */
  private static final String HOST_NAME = "";

  private final Peers peers;
  private final Duration timeout;
  private final Path tokenFile;
  private final String caFile;
  private final String certFile;
  private final String keyFile;
  /** By the name a peer's certificate must carry; null: the URL's host. */
  private final Map<String, HttpClient> clients = new ConcurrentHashMap<>();

  PeerClient(QueryConfiguration configuration, TlsConfiguration tls) {
    this.peers = new Peers(configuration.getPeers());
    this.timeout = configuration.getPeerTimeout();
    this.tokenFile =
        configuration.getPeerTokenFile() == null ? null : Path.of(configuration.getPeerTokenFile());
    this.caFile = configuration.getPeerCaFile();
    this.certFile = tls.getCertFile();
    this.keyFile = tls.getKeyFile();
    if (!peers.isEmpty()) {
      client(HOST_NAME); // a CA file or key that does not read fails the start, not a query
    }
  }

  /**
   * A client whose TLS trusts the peer CA file and presents this replica's certificate (for
   * peers that ask for one); for {@code tlsName}, accepting certificates that name it.
   */
  private HttpClient client(String tlsName) {
    return clients.computeIfAbsent(tlsName, name -> {
      try {
        return HttpClient.newBuilder()
            .connectTimeout(timeout)
            .version(HttpClient.Version.HTTP_1_1)
            .sslContext(name.equals(HOST_NAME) ? ClientTls.context(caFile, certFile, keyFile)
                : ClientTls.contextFor(name, caFile, certFile, keyFile))
            .build();
      } catch (IOException | GeneralSecurityException e) {
        throw new IllegalArgumentException("cannot read the TLS files for the peers ("
            + QueryConfiguration.PREFIX + ".peer-ca-file, " + TlsConfiguration.PREFIX
            + ".cert-file, .key-file): " + e.getMessage(), e);
      }
    });
  }

  /** Whether queries answer for a fleet: peers are configured. */
  public boolean enabled() {
    return !peers.isEmpty();
  }

  /** One peer's answer: its HTTP status (200 or 404) and body. */
  public record Reply(String peer, int status, byte[] body) {}

  /** The answers that came in time, and the peers that gave none, each with why. */
  public record Replies(List<Reply> replies, List<String> missingPeers) {}

  /**
   * GETs {@code pathAndQuery} (from {@code /}) of every peer, accepting {@code accept}; returns
   * when all answered or the timeout passed.
   */
  public Replies get(String pathAndQuery, String accept) {
    Peers.Resolved resolved = peers.resolve();
    String token = token();
    List<Peers.Peer> asked = resolved.peers();
    List<CompletableFuture<HttpResponse<byte[]>>> calls = new ArrayList<>(asked.size());
    for (Peers.Peer peer : asked) {
      HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(peer.base() + pathAndQuery))
          .timeout(timeout)
          .header("Accept", accept)
          .GET();
      if (token != null) {
        request.header("Authorization", "Bearer " + token);
      }
      calls.add(client(peer.tlsName() == null ? HOST_NAME : peer.tlsName())
          .sendAsync(request.build(), HttpResponse.BodyHandlers.ofByteArray()));
    }
    long deadlineNanos = System.nanoTime() + timeout.toNanos();
    List<Reply> replies = new ArrayList<>(asked.size());
    List<String> missing = new ArrayList<>(resolved.unresolved());
    for (int i = 0; i < asked.size(); i++) {
      String peer = asked.get(i).base();
      try {
        HttpResponse<byte[]> response = calls.get(i)
            .get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        if (response.statusCode() == 200 || response.statusCode() == 404) {
          replies.add(new Reply(peer, response.statusCode(), response.body()));
        } else {
          missing.add(peer + " (HTTP " + response.statusCode() + ")");
        }
      } catch (TimeoutException e) {
        calls.get(i).cancel(true);
        missing.add(peer + " (no answer within " + timeout.toMillis() + " ms)");
      } catch (ExecutionException e) {
        // The request's own timeout is the same as the wait's: whichever ends first says so.
        missing.add(peer + (e.getCause() instanceof HttpTimeoutException
            ? " (no answer within " + timeout.toMillis() + " ms)"
            : " (" + e.getCause().getClass().getSimpleName() + ")"));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        missing.add(peer + " (interrupted)");
      }
    }
    return new Replies(replies, missing);
  }

  /** Read at each query, so a rotated token is presented at once; null when none is set. */
  private String token() {
    if (tokenFile == null) {
      return null;
    }
    try {
      return Files.readAllLines(tokenFile).stream().map(String::strip)
          .filter(line -> !line.isEmpty()).findFirst().orElse(null);
    } catch (IOException e) {
      return null;
    }
  }
}
