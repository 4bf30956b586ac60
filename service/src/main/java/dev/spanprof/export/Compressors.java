package dev.spanprof.export;

import com.github.luben.zstd.RecyclingBufferPool;
import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import com.github.luben.zstd.util.Native;
import dev.spanprof.config.ExportConfiguration.Compression;
import io.grpc.Compressor;
import java.io.IOException;
import java.io.OutputStream;
import java.util.zip.GZIPOutputStream;

/**
 * The senders' compression at a chosen level. The JDK's gzip stream and grpc-java's own "gzip"
 * codec always use the default level 6; spanprof defaults to 1 (fastest), as the Collector's
 * Elasticsearch exporter does: flat out, level 6 took most of the forwarding threads' time for a
 * smaller gain in size than in CPU (BENCHMARKS.md). zstd comes from zstd-jni, whose native
 * library is loaded when a sender is made, so that a platform without one fails at start and not
 * at the first request; its 128 KiB buffer is taken from zstd-jni's pool, one per request in
 * flight, not allocated per request (about 260 bytes a forwarded span).
 */
final class Compressors {

  private Compressors() {}

  static OutputStream stream(Compression compression, int level, OutputStream out) throws IOException {
    return switch (compression) {
      case GZIP -> new GZIPOutputStream(out) {
        {
          def.setLevel(level);
        }
      };
      case ZSTD -> new ZstdOutputStreamNoFinalizer(out, RecyclingBufferPool.INSTANCE, level);
      case NONE -> throw new IllegalArgumentException("no compression to stream through");
    };
  }

  /** The compression as a gRPC message encoding, for a channel's compressor registry. */
  static Compressor grpc(Compression compression, int level) {
    requireNative(compression);
    return new Compressor() {
      @Override
      public String getMessageEncoding() {
        return compression.encoding();
      }

      @Override
      public OutputStream compress(OutputStream out) throws IOException {
        return stream(compression, level, out);
      }
    };
  }

  static void requireNative(Compression compression) {
    if (compression != Compression.ZSTD) {
      return;
    }
    try {
      Native.load();
    } catch (UnsatisfiedLinkError e) {
      throw new IllegalStateException("spanprof.export.compression=zstd needs zstd-jni's native "
          + "library, which does not load here (" + e.getMessage() + "); use gzip or none", e);
    }
  }
}
