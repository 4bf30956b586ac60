package dev.spanprof.fleet;

import dev.spanprof.config.QueryConfiguration;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Asks every peer ({@code spanprof.query.peers}) the same question at once, over HTTP, each within
 * {@code spanprof.query.peer-timeout}, presenting the read token of {@code
 * spanprof.query.peer-token-file}. A peer that cannot be reached, answers with an error or not in
 * time is named among the missing, never silently left out.
 */
@Singleton
public final class PeerClient {

  private final Peers peers;
  private final Duration timeout;
  private final Path tokenFile;
  private final HttpClient http;

  PeerClient(QueryConfiguration configuration) {
    this.peers = new Peers(configuration.getPeers());
    this.timeout = configuration.getPeerTimeout();
    this.tokenFile =
        configuration.getPeerTokenFile() == null ? null : Path.of(configuration.getPeerTokenFile());
    this.http = HttpClient.newBuilder()
        .connectTimeout(timeout)
        .version(HttpClient.Version.HTTP_1_1)
        .build();
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
    List<String> bases = resolved.bases();
    List<CompletableFuture<HttpResponse<byte[]>>> calls = new ArrayList<>(bases.size());
    for (String base : bases) {
      HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + pathAndQuery))
          .timeout(timeout)
          .header("Accept", accept)
          .GET();
      if (token != null) {
        request.header("Authorization", "Bearer " + token);
      }
      calls.add(http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofByteArray()));
    }
    long deadlineNanos = System.nanoTime() + timeout.toNanos();
    List<Reply> replies = new ArrayList<>(bases.size());
    List<String> missing = new ArrayList<>(resolved.unresolved());
    for (int i = 0; i < bases.size(); i++) {
      String peer = bases.get(i);
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
        missing.add(peer + " (" + e.getCause().getClass().getSimpleName() + ")");
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
