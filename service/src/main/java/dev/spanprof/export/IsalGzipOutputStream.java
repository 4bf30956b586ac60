package dev.spanprof.export;

import java.io.IOException;
import java.io.OutputStream;

/**
 * A gzip stream through one of {@link IsalGzip}'s pooled compressors, given back on close. Like
 * the JDK's {@code GZIPOutputStream}, {@link #flush} only flushes what is already compressed: a
 * forwarded request is compressed whole, and a sync flush would cost ratio for nothing.
 */
final class IsalGzipOutputStream extends OutputStream {

  private static final int BUFFER_BYTES = 16 * 1024;
  private static final byte[] NO_INPUT = new byte[0];

  private final OutputStream out;
  private final byte[] buffer = new byte[BUFFER_BYTES];
  private final byte[] single = new byte[1];
  private long handle;

  IsalGzipOutputStream(OutputStream out, long handle) {
    this.out = out;
    this.handle = handle;
  }

  @Override
  public void write(int b) throws IOException {
    single[0] = (byte) b;
    write(single, 0, 1);
  }

  @Override
  public void write(byte[] bytes, int offset, int length) throws IOException {
    if (handle == 0) {
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
    if (handle == 0) {
      return;
    }
    try {
      while (!IsalGzip.complete(deflate(NO_INPUT, 0, 0, true))) {
        // Each call fills at most the buffer; the stream's end may need more than one.
      }
    } finally {
      IsalGzip.release(handle);
      handle = 0;
      out.close();
    }
  }

  /** One native call, its output written on; returns the packed result. */
  private long deflate(byte[] bytes, int offset, int length, boolean finish) throws IOException {
    long result = IsalGzip.deflate(handle, bytes, offset, length, buffer, 0, buffer.length, finish);
    if (result < 0) {
      throw new IOException("ISA-L deflate failed with error " + result);
    }
    int produced = IsalGzip.produced(result);
    if (produced > 0) {
      out.write(buffer, 0, produced);
    }
    return result;
  }
}
