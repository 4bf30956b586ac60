package dev.spanprof.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;

/** A client that sends a request as slowly as a slowloris attack does. */
public final class SlowClient {

  private SlowClient() {}

  /**
   * Sends {@code request} a byte each time 100 ms pass with nothing read back, until the server
   * closes the connection or every byte is sent; how many bytes were sent.
   */
  public static int trickle(Socket socket, byte[] request) throws IOException {
    int sent = 0;
    try (socket) {
      OutputStream out = socket.getOutputStream();
      InputStream in = socket.getInputStream();
      socket.setSoTimeout(100);
      for (byte b : request) {
        out.write(b);
        out.flush();
        sent++;
        try {
          if (in.read() == -1) {
            break;
          }
        } catch (SocketTimeoutException stillOpen) {
          // the request is not whole yet, so nothing comes back: send the next byte
        }
      }
    } catch (SocketException reset) {
      // closed while writing: as good as a close seen on read
    }
    return sent;
  }
}
