package dev.spanprof.export;

import com.github.luben.zstd.RecyclingBufferPool;
import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import com.github.luben.zstd.util.Native;
import dev.spanprof.config.ExportConfiguration.Compression;
import io.grpc.Compressor;
import java.io.IOException;
import java.io.OutputStream;
import java.util.zip.GZIPOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The senders' compression at a chosen level. The JDK's gzip stream and grpc-java's own "gzip"
 * codec always use the default level 6; spanprof defaults to 1 (fastest), as the Collector's
 * Elasticsearch exporter does: flat out, level 6 took most of the forwarding threads' time for a
 * smaller gain in size than in CPU (BENCHMARKS.md). zstd comes from zstd-jni, whose native
 * library is loaded when a sender is made, so that a platform without one fails at start and not
 * at the first request; its 128 KiB buffer is taken from zstd-jni's pool, one per request in
 * flight, not allocated per request (about 260 bytes a forwarded span).
 *
 * <p>gzip at level 1 goes through ISA-L where it is available ({@link IsalGzip}): six times
 * faster than zlib to the same size. Other levels use zlib, whose levels they name.
 */
final class Compressors {

  private static final Logger LOG = LoggerFactory.getLogger(Compressors.class);

  private Compressors() {}

  static OutputStream stream(Compression compression, int level, OutputStream out) throws IOException {
    return switch (compression) {
      case GZIP -> throughIsal(level) ? IsalGzip.stream(out) : zlibGzip(level, out);
      case ZSTD -> new ZstdOutputStreamNoFinalizer(out, RecyclingBufferPool.INSTANCE, level);
      case NONE -> throw new IllegalArgumentException("no compression to stream through");
    };
  }

  /** Whether gzip at {@code level} goes through ISA-L: level 1, where its library loaded. */
  private static boolean throughIsal(int level) {
    return level == 1 && IsalGzip.available();
  }

  /** gzip through the JDK's zlib at {@code level}. */
  static OutputStream zlibGzip(int level, OutputStream out) throws IOException {
    return new GZIPOutputStream(out) {
      {
        def.setLevel(level);
      }
    };
  }

  /** The compression as a gRPC message encoding, for a channel's compressor registry. */
  static Compressor grpc(Compression compression, int level) {
    requireNative(compression, level);
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

  /**
   * Loads the compression's native library when it has one, so that a sender made for zstd
   * where it does not load fails at start, and says which gzip a sender made for gzip uses.
   */
  static void requireNative(Compression compression, int level) {
    if (compression == Compression.GZIP) {
      if (throughIsal(level)) {
        LOG.info("Forwarding gzip level 1 through ISA-L");
      } else if (level == 1) {
        LOG.info("Forwarding gzip level 1 through the JDK's zlib: ISA-L {}", IsalGzip.unavailableReason());
      }
      return;
    }
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
