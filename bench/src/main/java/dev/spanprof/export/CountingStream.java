package dev.spanprof.export;

import java.io.OutputStream;

/** Counts what is written, and keeps nothing: a stand-in for gRPC's pooled buffers. */
final class CountingStream extends OutputStream {
  long count;

  @Override
  public void write(int b) {
    count++;
  }

  @Override
  public void write(byte[] bytes, int offset, int length) {
    count += length;
  }

  @Override
  public void close() {
    // Kept open across invocations: the gzip stream's close closes it.
  }
}
