package dev.spanprof.export;

import io.grpc.Compressor;
import java.io.IOException;
import java.io.OutputStream;
import java.util.zip.GZIPOutputStream;

/**
 * gzip at a chosen level, for both senders. The JDK's stream and grpc-java's own "gzip" codec
 * always use the default level 6; spanprof defaults to 1 (fastest), as the Collector's
 * Elasticsearch exporter does: flat out, level 6 took most of the forwarding threads' time for
 * a smaller gain in size than in CPU (BENCHMARKS.md).
 */
final class Gzip {

  private Gzip() {}

  static OutputStream stream(OutputStream out, int level) throws IOException {
    return new GZIPOutputStream(out) {
      {
        def.setLevel(level);
      }
    };
  }

  /** The {@code gzip} message encoding for a gRPC channel's compressor registry. */
  static Compressor grpc(int level) {
    return new Compressor() {
      @Override
      public String getMessageEncoding() {
        return "gzip";
      }

      @Override
      public OutputStream compress(OutputStream out) throws IOException {
        return stream(out, level);
      }
    };
  }
}
