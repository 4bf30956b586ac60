package dev.spanprof.export;

import java.io.IOException;
import java.io.OutputStream;

/**
 * A gzip stream through one of {@link IsalGzip}'s pooled compressors, given back on close. What
 * is written gathers in the compressor's input buffer and goes to ISA-L a buffer at a time (see
 * {@link IsalGzip}). Like the JDK's {@code GZIPOutputStream}, {@link #flush} only flushes what is
 * already compressed: a forwarded request is compressed whole, and a sync flush would cost ratio
 * for nothing.
 */
final class IsalGzipOutputStream extends OutputStream {

  private final OutputStream out;
  private final byte[] single = new byte[1];
  /** Null once closed. */
  private IsalGzip.Compressor compressor;
  /** How many bytes of the compressor's input buffer are written and not yet compressed. */
  private int gathered;

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
    byte[] input = compressor.input();
    while (length > 0) {
      int copied = Math.min(length, input.length - gathered);
      System.arraycopy(bytes, offset, input, gathered, copied);
      gathered += copied;
      offset += copied;
      length -= copied;
      if (gathered == input.length) {
        compressGathered(false);
      }
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
      compressGathered(true);
    } finally {
      IsalGzip.release(compressor);
      compressor = null;
      out.close();
    }
  }

  /**
   * Compresses the gathered input, and then the gzip stream's end when {@code finish} is set:
   * native calls into the output buffer, each call's output written on.
   */
  private void compressGathered(boolean finish) throws IOException {
    byte[] input = compressor.input();
    byte[] output = compressor.output();
    int offset = 0;
    long result;
    do {
      result = IsalGzip.deflate(compressor.handle(), input, offset, gathered - offset, output, 0,
          output.length, finish);
      if (result < 0) {
        throw new IOException("ISA-L deflate failed with error " + result);
      }
      int consumed = IsalGzip.consumed(result);
      int produced = IsalGzip.produced(result);
      if (produced == 0 && consumed == 0 && !IsalGzip.complete(result)) {
        // With an empty buffer to fill it always moves; a loop must not spin if it ever did not.
        throw new IOException("ISA-L deflate made no progress");
      }
      if (produced > 0) {
        out.write(output, 0, produced);
      }
      offset += consumed;
    } while (offset < gathered || (finish && !IsalGzip.complete(result)));
    gathered = 0;
  }
}
