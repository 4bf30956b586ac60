package dev.spanprof.management;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.testing.SlowClient;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Slow and greedy clients of the management listener do not stop the probes: a half-sent
 * request is closed after the request timeout and holds nothing meanwhile; connections beyond
 * the limit are closed as they open; a slow scrape leaves the probes answered.
 */
@MicronautTest
@Property(name = "spanprof.management.request-timeout", value = "300ms")
@Property(name = "spanprof.management.max-connections", value = "8")
class ManagementLimitsTest {

  private static final Duration TEST_TIMEOUT = Duration.ofSeconds(30);

  @Inject ApplicationContext context;
  @Inject MeterRegistry registry;

  @Test
  void halfSentRequest_probesAnsweredMeanwhile_closedAfterTheRequestTimeout() throws Exception {
    try (Socket slow = connect()) {
      OutputStream out = slow.getOutputStream();
      out.write("GET /health/readiness HTTP/1.1\r\nHo".getBytes(StandardCharsets.US_ASCII));
      out.flush();

      assertThat(get("/health")).startsWith("HTTP/1.1 200");
      assertThat(get("/metrics")).startsWith("HTTP/1.1 200");

      // Nothing more is sent: the listener closes the connection without an answer.
      assertThat(slow.getInputStream().read()).isEqualTo(-1);
    }
  }

  @Test
  void silentConnection_closedAtTheRequestTimeoutFromItsOpening() throws Exception {
    try (Socket silent = connect()) {
      assertThat(get("/health/liveness")).startsWith("HTTP/1.1 200");

      // The idle timeout (60 s) is longer than the socket's: only the request timeout closes it.
      assertThat(silent.getInputStream().read()).isEqualTo(-1);
    }
  }

  @Test
  void trickleOfOneByteAtATime_closedAtTheRequestTimeoutFromItsFirstByte() throws Exception {
    byte[] request = "GET /health HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII);

    assertThat(SlowClient.trickle(connect(), request)).as("closed before the request was whole")
        .isLessThan(request.length);
  }

  @Test
  void connectionsBeyondTheLimit_closedAsTheyOpen_probesAnsweredOnceOneLeaves() throws Exception {
    List<Socket> idle = new ArrayList<>();
    try {
      for (int i = 0; i < 8; i++) {
        idle.add(connect());
      }
      try (Socket oneTooMany = connect()) {
        assertThat(oneTooMany.getInputStream().read()).isEqualTo(-1);
      }
      idle.remove(0).close();

      // The listener sees the close a moment later; until then a probe is closed unanswered.
      long deadline = System.nanoTime() + TEST_TIMEOUT.toNanos();
      String answer = get("/health/liveness");
      while (answer.isEmpty() && System.nanoTime() < deadline) {
        answer = get("/health/liveness");
      }
      assertThat(answer).startsWith("HTTP/1.1 200");
    } finally {
      for (Socket socket : idle) {
        socket.close();
      }
    }
  }

  @Test
  void slowScrape_probesAnsweredMeanwhile() throws Exception {
    CountDownLatch scraping = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Gauge slow = Gauge.builder("test.slow.gauge", () -> {
      scraping.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return 1;
    }).register(registry);
    try {
      CompletableFuture<String> scrape = CompletableFuture.supplyAsync(() -> {
        try {
          return get("/metrics");
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
      assertThat(scraping.await(TEST_TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();

      assertThat(get("/health/liveness")).startsWith("HTTP/1.1 200");
      assertThat(get("/health/readiness")).startsWith("HTTP/1.1 200");
      assertThat(scrape).isNotDone();

      release.countDown();
      assertThat(scrape.get(TEST_TIMEOUT.toSeconds(), TimeUnit.SECONDS))
          .startsWith("HTTP/1.1 200").contains("test_slow_gauge 1.0");
    } finally {
      release.countDown();
      registry.remove(slow);
    }
  }

  private Socket connect() throws IOException {
    Socket socket = new Socket("localhost", context.getBean(ManagementServer.class).port());
    socket.setSoTimeout((int) TEST_TIMEOUT.toMillis());
    return socket;
  }

  /**
   * The answer to a GET on a connection of its own, closed after it (so that no client's pooled
   * connection counts against the limit); "" when the listener closed it unanswered.
   */
  private String get(String path) throws IOException {
    try (Socket socket = connect()) {
      socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\n"
          + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
    } catch (SocketException reset) {
      return "";
    }
  }
}
