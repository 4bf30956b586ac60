package dev.spanprof.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.testing.Meters;
import dev.spanprof.testing.Ports;
import dev.spanprof.testing.SlowClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Slowloris on the HTTP port: clients that send a request's headers a byte at a time, or nothing,
 * are closed at the header deadline (1 s here) though every byte restarts the read timeout
 * (60 s here); once they are gone, every connection slot serves again.
 */
@MicronautTest
@Property(name = "spanprof.ingest.read-header-timeout", value = "1s")
@Property(name = "spanprof.ingest.read-timeout", value = "60s")
@Property(name = "spanprof.ingest.max-connections", value = "4")
class SlowHeadersTest {

  private static final Duration TEST_TIMEOUT = Duration.ofSeconds(30);
  private static final byte[] REQUEST = ("GET /api/v1/status HTTP/1.1\r\nHost: localhost\r\n"
      + "User-Agent: slow\r\nAccept: */*\r\n\r\n").getBytes(StandardCharsets.US_ASCII);

  @Inject ApplicationContext context;
  @Inject MeterRegistry registry;

  @Test
  void trickleOfHeaderBytes_closedBeforeTheHeadersAreWhole() throws Exception {
    assertThat(SlowClient.trickle(connect(), REQUEST)).as("closed before the request was whole").isLessThan(REQUEST.length);
    assertThat(new Meters(registry).count("spanprof.rejected.requests", "transport", "http",
        "reason", "header_timeout")).isPositive();
  }

  @Test
  void silentConnection_closedAtTheDeadlineFromItsOpening() throws Exception {
    try (Socket silent = connect()) {
      assertThat(silent.getInputStream().read()).isEqualTo(-1);
    }
  }

  @Test
  void everySlotHeldBySlowClients_servesAgainOnceTheyAreClosed() throws Exception {
    List<Socket> slow = new ArrayList<>();
    try {
      for (int i = 0; i < 4; i++) {
        Socket socket = connect();
        socket.getOutputStream().write(REQUEST, 0, 5);
        slow.add(socket);
      }
      for (Socket socket : slow) {
        assertThat(socket.getInputStream().read()).isEqualTo(-1);
      }

      // The listener frees a slot as it closes; a request a moment sooner is closed unanswered.
      long deadline = System.nanoTime() + TEST_TIMEOUT.toNanos();
      String answer = get();
      while (answer.isEmpty() && System.nanoTime() < deadline) {
        answer = get();
      }
      assertThat(answer).startsWith("HTTP/1.1 200");
    } finally {
      for (Socket socket : slow) {
        socket.close();
      }
    }
  }

  private Socket connect() throws IOException {
    Socket socket = new Socket("localhost", Ports.of(context).http());
    socket.setSoTimeout((int) TEST_TIMEOUT.toMillis());
    return socket;
  }

  /** A request on a connection of its own; "" when the listener closed it unanswered. */
  private String get() throws IOException {
    try (Socket socket = connect()) {
      socket.getOutputStream().write(("GET /api/v1/status HTTP/1.1\r\nHost: localhost\r\n"
          + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
    } catch (SocketException reset) {
      return "";
    }
  }
}
