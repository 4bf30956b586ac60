package dev.spanprof.export;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayDeque;
import java.util.Locale;

/**
 * gzip at level 1 through Intel's ISA-L (igzip, Debian's libisal2): about six times faster than
 * zlib's level 1 on OTLP requests, to the same size (BENCHMARKS.md), where zlib took four fifths
 * of the forwarding threads. The JNI shim ({@code src/main/c/isal_gzip.c}) is built by the
 * service's {@code isal} Maven profile where ISA-L's headers are installed; where it was not
 * built or libisal does not load, {@link #available} is false and the senders use the JDK's
 * zlib, with the reason logged.
 *
 * <p>A native compressor is an {@code isal_zstream} with its hash buffer, about 360 KB outside
 * the heap, and a 256 KB input and a 16 KB output buffer on it; streams take one from a pool and
 * put it back when they close, so there are as many as streams compress at once (one per
 * forwarding thread), not one per request. A stream must be closed to give its compressor back,
 * as gRPC's framer and the HTTP sender do even when a write fails.
 */
final class IsalGzip {

  private static final String LIBRARY = "/native/linux-x86_64/libspanprof-isal.so";
  /** Idle compressors kept beyond this many are freed. */
  private static final int MAX_IDLE = 16;
  private static final int COUNT_BITS = 31;
  private static final long COUNT_MASK = (1L << COUNT_BITS) - 1;
  /**
   * What a stream gathers before one native call. ISA-L copies each call's input into its 64 KB
   * window and moves the window down after it, so 8 KB pieces (the encoder's) were moved about
   * five times each, a quarter of the compression's time (ExportRequestBenchmark.streamedIntoGzip);
   * given a quarter megabyte at once, it compresses most of it where it lies.
   */
  private static final int INPUT_BYTES = 256 * 1024;
  private static final int OUTPUT_BYTES = 16 * 1024;

  /** Null when the library loaded; else why not. */
  private static final String UNAVAILABLE = load();
  private static final ArrayDeque<Compressor> IDLE = new ArrayDeque<>();

  private IsalGzip() {}

  static boolean available() {
    return UNAVAILABLE == null;
  }

  /** Why ISA-L is not used here, or null when it is. */
  static String unavailableReason() {
    return UNAVAILABLE;
  }

  /** A gzip stream into {@code out}; requires {@link #available}. */
  static OutputStream stream(OutputStream out) {
    if (!available()) {
      throw new IllegalStateException("ISA-L is not available: " + UNAVAILABLE);
    }
    return new IsalGzipOutputStream(out, take());
  }

  private static String load() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "");
    if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
      return "built for linux-x86_64 only, this is " + os + "-" + arch;
    }
    try (InputStream library = IsalGzip.class.getResourceAsStream(LIBRARY)) {
      if (library == null) {
        return "not built (ISA-L's headers, Debian's libisal-dev, were missing at build time)";
      }
      // System.load needs a file: the library is copied out of the jar, and the copy removed
      // once loaded (the mapping outlives it), so that no restart, killed or not, leaves one.
      Path file = Files.createTempFile("spanprof-isal", ".so");
      try {
        Files.copy(library, file, StandardCopyOption.REPLACE_EXISTING);
        System.load(file.toAbsolutePath().toString());
      } finally {
        Files.delete(file);
      }
      return null;
    } catch (IOException | UnsatisfiedLinkError e) {
      return "does not load (" + e.getMessage() + "); Debian's libisal2 provides libisal.so.2";
    }
  }

  /** A native compressor and the buffers its input and output go through. */
  record Compressor(long handle, byte[] input, byte[] output) {}

  /** An idle compressor, reset, or a new one. */
  private static Compressor take() {
    Compressor idle;
    synchronized (IDLE) {
      idle = IDLE.pollFirst();
    }
    if (idle == null) {
      long handle = create();
      if (handle == 0) {
        throw new OutOfMemoryError("no memory for an ISA-L compressor");
      }
      return new Compressor(handle, new byte[INPUT_BYTES], new byte[OUTPUT_BYTES]);
    }
    reset(idle.handle());
    return idle;
  }

  /** Gives a compressor back; it is reset when taken again. */
  static void release(Compressor compressor) {
    synchronized (IDLE) {
      if (IDLE.size() < MAX_IDLE) {
        IDLE.addFirst(compressor);
        return;
      }
    }
    free(compressor.handle());
  }

  static int consumed(long result) {
    return (int) (result & COUNT_MASK);
  }

  static int produced(long result) {
    return (int) ((result >>> COUNT_BITS) & COUNT_MASK);
  }

  static boolean complete(long result) {
    return (result >>> (2 * COUNT_BITS)) != 0;
  }

  private static native long create();

  private static native void reset(long handle);

  /**
   * Compresses what fits of {@code in} into {@code out}, the gzip stream's end once {@code
   * finish} is set; see isal_gzip.c for the packed result (negative: ISA-L's error code).
   */
  static native long deflate(long handle, byte[] in, int inOffset, int inLength, byte[] out,
      int outOffset, int outLength, boolean finish);

  private static native void free(long handle);
}
