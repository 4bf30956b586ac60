package dev.spanprof.ingest;

import com.github.luben.zstd.RecyclingBufferPool;
import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import com.github.luben.zstd.util.Native;
import io.grpc.Decompressor;
import io.grpc.DecompressorRegistry;
import java.io.IOException;
import java.io.InputStream;

/**
 * The {@code zstd} message encoding for gRPC servers, which the Collector's OTLP exporters send
 * when configured with {@code compression: zstd}; grpc-java has only gzip. Public for the
 * benchmarks' decode-only sink, which takes what spanprof takes.
 *
 * <p>gRPC bounds what the stream expands to by the server's maximum inbound message size, and
 * closes it after parsing, which frees zstd's native context and gives its buffer back to
 * zstd-jni's pool.
 */
public final class ZstdDecompressor implements Decompressor {

  /** Whether zstd-jni's native library loads on this platform; without it zstd is refused. */
  public static final boolean AVAILABLE = loads();

  private ZstdDecompressor() {}

  /** gRPC's default decompressors (gzip, identity), and zstd where its native library loads. */
  public static DecompressorRegistry registry() {
    DecompressorRegistry registry = DecompressorRegistry.getDefaultInstance();
    return AVAILABLE ? registry.with(new ZstdDecompressor(), true) : registry;
  }

  @Override
  public String getMessageEncoding() {
    return "zstd";
  }

  @Override
  public InputStream decompress(InputStream compressed) throws IOException {
    return new ZstdInputStreamNoFinalizer(compressed, RecyclingBufferPool.INSTANCE);
  }

  private static boolean loads() {
    try {
      Native.load();
      return true;
    } catch (UnsatisfiedLinkError e) {
      return false;
    }
  }
}
