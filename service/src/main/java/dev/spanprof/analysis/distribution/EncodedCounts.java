package dev.spanprof.analysis.distribution;

import dev.spanprof.analysis.internal.CountsIndex;
import java.nio.ByteBuffer;
import org.HdrHistogram.AbstractHistogram;

/**
 * Reads the counts of a histogram in HdrHistogram's V2 encoding ({@link
 * AbstractHistogram#encodeIntoByteBuffer}) into another histogram, without decoding it into a
 * histogram of its own: HdrHistogram's decoder allocates a dense histogram of the encoded range
 * (tens of kilobytes) per call, and a series reads its encoded slices at every scrape.
 *
 * <p>The format: a 40-byte header (cookie, payload length, normalizing index offset, significant
 * digits, lowest and highest trackable value, conversion ratio), then the counts by index as
 * ZigZag LEB128 longs (at most 9 bytes each), a negative one standing for that many zero counts.
 */
final class EncodedCounts {

  /** HdrHistogram's V2 cookie, word size 1 with the zero-run encoding (its low bit). */
  private static final int V2_COOKIE = 0x1c849303 | 0x10;
  private static final int HEADER_BYTES = 40;

  private EncodedCounts() {}

  /**
   * Adds the counts encoded in {@code encoded} (made by a histogram of {@code index}'s digits,
   * lowest discernible value 1, not shifted) to {@code target}.
   */
  static void addTo(byte[] encoded, CountsIndex index, AbstractHistogram target) {
    ByteBuffer buffer = ByteBuffer.wrap(encoded);
    if (buffer.getInt() != V2_COOKIE) {
      throw new IllegalArgumentException("not a V2-encoded histogram");
    }
    int end = HEADER_BYTES + buffer.getInt();
    if (buffer.getInt() != 0) {
      throw new IllegalArgumentException("a shifted histogram's counts are not read here");
    }
    buffer.position(HEADER_BYTES);
    int at = 0;
    while (buffer.position() < end) {
      long count = zigZagLong(buffer);
      if (count < 0) {
        at += (int) -count;
      } else {
        if (count > 0) {
          target.recordValueWithCount(index.lowestValueAt(at), count);
        }
        at++;
      }
    }
  }

  /** One ZigZag LEB128-64b9B long, as HdrHistogram's {@code ZigZagEncoding.getLong} reads it. */
  private static long zigZagLong(ByteBuffer buffer) {
    long value = 0;
    for (int shift = 0; shift < 56; shift += 7) {
      long b = buffer.get();
      value |= (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        return (value >>> 1) ^ -(value & 1);
      }
    }
    value |= (buffer.get() & 0xffL) << 56; // the ninth byte carries eight bits
    return (value >>> 1) ^ -(value & 1);
  }
}
