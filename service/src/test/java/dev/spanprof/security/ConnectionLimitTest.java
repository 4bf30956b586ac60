package dev.spanprof.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.testing.Ports;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;

/**
 * Beyond {@code spanprof.ingest.max-connections} each receiver closes a new connection at once,
 * without an answer. A context of its own, so that no other test's connections count.
 */
@MicronautTest
@Property(name = "spanprof.ingest.max-connections", value = "50")
class ConnectionLimitTest {

  /** The client preface of HTTP/2 and an empty SETTINGS frame. */
  private static final byte[] HTTP2_PREFACE = concat(
      "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII),
      new byte[] {0, 0, 0, 4, 0, 0, 0, 0, 0});
  private static final byte[] REQUEST = "GET /api/v1/status HTTP/1.1\r\nHost: localhost\r\n\r\n"
      .getBytes(StandardCharsets.US_ASCII);

  @Inject ApplicationContext context;

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] result = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, result, a.length, b.length);
    return result;
  }

  /** The gRPC port the same: the 51st connection is closed before gRPC sees it. */
  @Test
  void grpcPort_beyondMaxConnections_closesTheNewOne() throws Exception {
    // The HTTP/2 preface draws gRPC's settings frame.
    assertClosesTheOneBeyondTheLimit(Ports.of(context).grpc(), HTTP2_PREFACE,
        first -> assertThat(first).isNotEqualTo(-1));
  }

  @Test
  void httpPort_beyondMaxConnections_closesTheNewOne() throws Exception {
    assertClosesTheOneBeyondTheLimit(Ports.of(context).http(), REQUEST,
        first -> assertThat(first).isEqualTo('H'));
  }

  /**
   * Holds 50 connections, each of which has sent {@code greeting} and had the first byte of its
   * answer checked: a connect completes in the kernel before the server accepts it, so only an
   * answer shows the server has counted it before the next. Then one more, which writes nothing,
   * so that its close is a clean end of stream (were it kept, the read would time out).
   */
  private static void assertClosesTheOneBeyondTheLimit(int port, byte[] greeting,
      IntConsumer checkFirstByte) throws Exception {
    List<Socket> held = new ArrayList<>();
    try {
      for (int i = 0; i < 50; i++) {
        Socket socket = new Socket("localhost", port);
        held.add(socket);
        socket.getOutputStream().write(greeting);
        checkFirstByte.accept(socket.getInputStream().read());
      }
      try (Socket extra = new Socket("localhost", port)) {
        extra.setSoTimeout(10_000);
        InputStream in = extra.getInputStream();
        assertThat(in.read()).as("closed at once").isEqualTo(-1);
      }
    } finally {
      for (Socket socket : held) {
        socket.close();
      }
    }
  }
}
