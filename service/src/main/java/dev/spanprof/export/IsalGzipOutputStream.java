package dev.spanprof.export;

import java.io.IOException;
import java.io.OutputStream;

/**
 * A gzip stream through one of {@link IsalGzip}'s pooled compressors, given back on close. Like
 * the JDK's {@code GZIPOutputStream}, {@link #flush} only flushes what is already compressed: a
 * forwarded request is compressed whole, and a sync flush would cost ratio for nothing.
 */
final class IsalGzipOutputStream extends OutputStream {

  private static final byte[] NO_INPUT = new byte[0];

  private final OutputStream out;
  private final byte[] single = new byte[1];
  /** Null once closed. */
  private IsalGzip.Compressor compressor;

  IsalGzipOutputStream(OutputStream out, IsalGzip.Compressor compressor) {
    this.out = out;
    this.compressor = compressor;
  }

  @Override
  public void write(int b) throws IOException {
    single[0] = (byte) b;
    write(single, 0, 1);
  }

  @Override
  public void write(byte[] bytes, int offset, int length) throws IOException {
    if (compressor == null) {
      throw new IOException("stream closed");
    }
    while (length > 0) {
      long result = deflate(bytes, offset, length, false);
      int consumed = IsalGzip.consumed(result);
      offset += consumed;
      length -= consumed;
    }
  }

  @Override
  public void flush() throws IOException {
    out.flush();
  }

  /** Ends the gzip stream, gives the compressor back and closes the underlying stream. */
  @Override
  public void close() throws IOException {
    if (compressor == null) {
      return;
    }
    try {
      while (!IsalGzip.complete(deflate(NO_INPUT, 0, 0, true))) {
        // Each call fills at most the buffer; the stream's end may need more than one.
      }
    } finally {
      IsalGzip.release(compressor);
      compressor = null;
      out.close();
    }
  }

  /** One native call into the compressor's buffer, its output written on; the packed result. */
  private long deflate(byte[] bytes, int offset, int length, boolean finish) throws IOException {
    byte[] buffer = compressor.buffer();
    long result = IsalGzip.deflate(compressor.handle(), bytes, offset, length, buffer, 0,
        buffer.length, finish);
    if (result < 0) {
      throw new IOException("ISA-L deflate failed with error " + result);
    }
    int produced = IsalGzip.produced(result);
    if (produced == 0 && IsalGzip.consumed(result) == 0 && !IsalGzip.complete(result)) {
      // With an empty buffer to fill it always moves; a loop must not spin if it ever did not.
      throw new IOException("ISA-L deflate made no progress");
    }
    if (produced > 0) {
      out.write(buffer, 0, produced);
    }
    return result;
  }
}
