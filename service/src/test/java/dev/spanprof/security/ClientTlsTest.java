package dev.spanprof.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.nio.file.Path;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica behind a headless Service is reached by address and known by the Service's name: the
 * name its certificate must carry is that name, not the address dialled.
 */
class ClientTlsTest {

  @TempDir static Path files;
  private static Certificates certificates;

  @BeforeAll
  static void certificates() throws Exception {
    certificates = new Certificates(files);
  }

  @Test
  void contextFor_acceptsACertificateNamingTheName_atAnyAddress() throws Exception {
    SSLContext context = ClientTls.contextFor("localhost", certificates.file("ca.crt").toString(),
        "", "");

    assertThat(handshake(context)).isNull();
  }

  @Test
  void contextFor_refusesACertificateWithoutTheName() throws Exception {
    SSLContext context = ClientTls.contextFor("spanprof-headless.spanprof.svc",
        certificates.file("ca.crt").toString(), "", "");

    assertThat(handshake(context)).isInstanceOf(IOException.class)
        .hasStackTraceContaining("does not name spanprof-headless.spanprof.svc");
  }

  @Test
  void contextFor_refusesACertificateOfAnotherCa() throws Exception {
    SSLContext context = ClientTls.contextFor("localhost",
        certificates.file("other-ca.crt").toString(), "", "");

    assertThat(handshake(context)).isInstanceOf(IOException.class);
  }

  /** A handshake with a server holding server.crt on 127.0.0.1; null when it succeeded. */
  private static Throwable handshake(SSLContext client) throws Exception {
    SSLContext server = ClientKeys.context(certificates.file("ca.crt"),
        certificates.file("server.key"), certificates.file("server.crt"));
    try (SSLServerSocket listener = (SSLServerSocket) server.getServerSocketFactory()
        .createServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Thread accept = new Thread(() -> {
        try (SSLSocket socket = (SSLSocket) listener.accept()) {
          socket.startHandshake();
          OutputStream out = socket.getOutputStream();
          out.write(1);
          out.flush();
        } catch (IOException refused) {
          // the client gave up on the certificate
        }
      });
      accept.start();
      Throwable failure = catchThrowable(() -> {
        try (SSLSocket socket = (SSLSocket) client.getSocketFactory()
            .createSocket("127.0.0.1", listener.getLocalPort())) {
          socket.startHandshake();
          InputStream in = socket.getInputStream();
          assertThat(in.read()).isEqualTo(1);
        }
      });
      accept.join(10_000);
      return failure;
    }
  }
}
