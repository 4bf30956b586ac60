package dev.spanprof.ingest;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.GZIPInputStream;

/** Bounded gzip decompression: a small compressed body cannot expand past the message limit. */
final class Gzip {

  private Gzip() {}

  static byte[] decompress(byte[] compressed, int maxBytes) throws TooLargeException, InvalidException {
    try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(compressed))) {
      ByteArrayOutputStream out = new ByteArrayOutputStream(Math.min(maxBytes, compressed.length * 4 + 64));
      byte[] chunk = new byte[8192];
      int read;
      while ((read = in.read(chunk)) > 0) {
        if (out.size() + read > maxBytes) {
          throw new TooLargeException("the body expands beyond spanprof.ingest.max-message-size ("
              + maxBytes + " bytes) when decompressed");
        }
        out.write(chunk, 0, read);
      }
      return out.toByteArray();
    } catch (IOException e) {
      throw new InvalidException("the body is not valid gzip (Content-Encoding: gzip): " + e.getMessage());
    }
  }

  static final class TooLargeException extends Exception {
    TooLargeException(String message) {
      super(message);
    }
  }

  static final class InvalidException extends Exception {
    InvalidException(String message) {
      super(message);
    }
  }
}
