package dev.spanprof.analysis.trace;

import java.util.Arrays;

/**
 * Time segments, each held by one span of a profile, in order: the profile's resource lanes or
 * its critical path. Three arrays rather than an object a segment: a profile has about as many
 * segments as spans, and the query API keeps thousands of profiles. At 20 spans a trace, a record
 * a segment made the analysis 12 % slower, these arrays 2 % ({@code AnalysisBenchmark}, see
 * BENCHMARKS.md, "Simplifications").
 */
public final class SpanSegments {

  private final int[] spans;
  private final long[] startNanos;
  private final long[] endNanos;

  private SpanSegments(int[] spans, long[] startNanos, long[] endNanos) {
    this.spans = spans;
    this.startNanos = startNanos;
    this.endNanos = endNanos;
  }

  /** A copy of {@code segments}, in their order or reversed. */
  static SpanSegments copyOf(Segments segments, boolean reversed) {
    int n = segments.size;
    int[] spans = Arrays.copyOf(segments.owner, n);
    long[] from = Arrays.copyOf(segments.from, n);
    long[] to = Arrays.copyOf(segments.to, n);
    if (reversed) {
      for (int k = 0, last = n - 1; k < last; k++, last--) {
        swap(spans, k, last);
        swap(from, k, last);
        swap(to, k, last);
      }
    }
    return new SpanSegments(spans, from, to);
  }

  public int size() {
    return spans.length;
  }

  /** The position, in the profile's spans, of the span holding segment k. */
  public int span(int k) {
    return spans[k];
  }

  public long startNanos(int k) {
    return startNanos[k];
  }

  public long endNanos(int k) {
    return endNanos[k];
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof SpanSegments that
        && Arrays.equals(spans, that.spans)
        && Arrays.equals(startNanos, that.startNanos)
        && Arrays.equals(endNanos, that.endNanos);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * Arrays.hashCode(spans) + Arrays.hashCode(startNanos))
        + Arrays.hashCode(endNanos);
  }

  @Override
  public String toString() {
    StringBuilder text = new StringBuilder("[");
    for (int k = 0; k < size(); k++) {
      text.append(k == 0 ? "" : ", ").append(spans[k]).append(": [").append(startNanos[k])
          .append(", ").append(endNanos[k]).append(')');
    }
    return text.append(']').toString();
  }

  private static void swap(int[] values, int a, int b) {
    int value = values[a];
    values[a] = values[b];
    values[b] = value;
  }

  private static void swap(long[] values, int a, int b) {
    long value = values[a];
    values[a] = values[b];
    values[b] = value;
  }
}
