package dev.spanprof.ingest.http;

import dev.spanprof.ingest.ZstdDecompressor;
import com.github.luben.zstd.RecyclingBufferPool;
import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.GZIPInputStream;

/**
 * Bounded decompression of OTLP/HTTP bodies, gzip or zstd: a small compressed body cannot expand
 * past the message limit.
 */
final class BodyDecompression {

  private BodyDecompression() {}

  /** Whether a {@code Content-Encoding}, in lower case, is one this decompresses. */
  static boolean decompresses(String encoding) {
    return "gzip".equals(encoding) || ("zstd".equals(encoding) && ZstdDecompressor.AVAILABLE);
  }

  static byte[] decompress(String encoding, byte[] compressed, int maxBytes)
      throws TooLargeException, InvalidException {
    try (InputStream in = open(encoding, new ByteArrayInputStream(compressed))) {
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
      throw new InvalidException("the body is not valid " + encoding
          + " (Content-Encoding: " + encoding + "): " + e.getMessage());
    }
  }

  private static InputStream open(String encoding, InputStream compressed) throws IOException {
    return "gzip".equals(encoding)
        ? new GZIPInputStream(compressed)
        : new ZstdInputStreamNoFinalizer(compressed, RecyclingBufferPool.INSTANCE);
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
