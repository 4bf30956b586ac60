package dev.spanprof.api;

import dev.spanprof.span.SpanRecord;
import java.util.ArrayList;
import java.util.List;

/**
 * The recent traces' spans as received, in one ring of {@code spanprof.query.recent-trace-bytes}
 * allocated once: each kept trace is written after the last, over the oldest, so the oldest go
 * first and the newest are there.
 *
 * <p>A ring, not an array per trace: a trace's copy lives for thousands of traces after it, so
 * copies of their own were each promoted to the old generation and collected there, which
 * doubled the analysis stage's cost per span ({@code PipelineBenchmark}, 0.76 to 1.53 µs);
 * written into the ring, they cost a copy of their bytes and no collection.
 *
 * <p>An entry at position {@code p} (bytes written before it, ever) is: its length, the number
 * of resources and of spans, each resource's encoded {@code Resource} (length, bytes), then each
 * span's resource and encoded {@code Span} (index, length, bytes); the ints big-endian.
 */
final class OriginalSpanLog {

  private final int capacity;
  /** Allocated when the first trace is kept: a context that keeps none holds none. */
  private byte[] ring;
  private long written;

  OriginalSpanLog(long capacityBytes) {
    this.capacity = (int) Math.min(capacityBytes, Integer.MAX_VALUE - 8);
  }

  /**
   * Writes {@code spans}' encodings and their resources; read their bytes before they are
   * released. Returns the entry's position, or -1 when the ring is smaller than the entry.
   */
  long append(List<SpanRecord> spans) {
    List<byte[]> resources = new ArrayList<>(2);
    int[] resourceOfSpan = new int[spans.size()];
    long length = 12;
    for (int i = 0; i < spans.size(); i++) {
      byte[] resource = spans.get(i).resource().encoded();
      int index = indexOf(resources, resource);
      if (index < 0) {
        index = resources.size();
        resources.add(resource);
        length += 4 + resource.length;
      }
      resourceOfSpan[i] = index;
      length += 8 + spans.get(i).encodedLength();
    }
    if (length > capacity) {
      return -1;
    }
    synchronized (this) {
      if (ring == null) {
        ring = new byte[capacity];
      }
      long position = written;
      putInt((int) length);
      putInt(resources.size());
      putInt(spans.size());
      for (byte[] resource : resources) {
        putInt(resource.length);
        put(resource, 0, resource.length);
      }
      for (int i = 0; i < spans.size(); i++) {
        SpanRecord span = spans.get(i);
        putInt(resourceOfSpan[i]);
        putInt(span.encodedLength());
        put(span.encodedArray(), span.encodedOffset(), span.encodedLength());
      }
      return position;
    }
  }

  /** The entry at {@code position}, or null when newer ones have been written over it. */
  OriginalSpans read(long position) {
    byte[] entry;
    synchronized (this) {
      if (position < 0 || position < written - capacity) {
        return null;
      }
      byte[] length = new byte[4];
      get(position, length);
      entry = new byte[(length[0] & 0xFF) << 24 | (length[1] & 0xFF) << 16
          | (length[2] & 0xFF) << 8 | length[3] & 0xFF];
      get(position, entry);
    }
    return OriginalSpans.of(entry);
  }

  private static int indexOf(List<byte[]> resources, byte[] resource) {
    for (int k = 0; k < resources.size(); k++) {
      if (resources.get(k) == resource) {
        return k;
      }
    }
    return -1;
  }

  private void putInt(int value) {
    for (int shift = 24; shift >= 0; shift -= 8) {
      ring[(int) (written++ % capacity)] = (byte) (value >>> shift);
    }
  }

  /** Writes at the end, wrapping round. */
  private void put(byte[] source, int offset, int length) {
    int at = (int) (written % capacity);
    int first = Math.min(length, capacity - at);
    System.arraycopy(source, offset, ring, at, first);
    System.arraycopy(source, offset + first, ring, 0, length - first);
    written += length;
  }

  private void get(long position, byte[] target) {
    int at = (int) (position % capacity);
    int first = Math.min(target.length, capacity - at);
    System.arraycopy(ring, at, target, 0, first);
    System.arraycopy(ring, 0, target, first, target.length - first);
  }
}
