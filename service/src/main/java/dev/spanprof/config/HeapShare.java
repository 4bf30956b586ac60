package dev.spanprof.config;

/**
 * Scales the defaults of what spanprof holds in memory to the heap it runs in, so that the
 * default configuration fits any heap: each bound's default is its value at a heap of {@value
 * #REFERENCE_HEAP_MIB} MiB or more, and in proportion below.
 *
 * <p>At the reference heap the defaults hold at most about 1.1 GB after collection flat out and
 * under overload ({@code bench/overload.sh} at 1.5 GiB with the same bounds), a little over
 * half of it, and the recent traces' original spans at most 64 MiB more; the other half is young generation, headroom and what does not scale (classes,
 * caches of a fixed size). In proportion, no heap fills past the memory guard's 80 % with the
 * defaults. At 512 MiB: 125 000 buffered spans, 25 000 queued for analysis, 50 000 for
 * forwarding, a 128 MiB span store, 2 500 distribution series and recent profiles, 16 MiB of their original spans.
 */
final class HeapShare {

  static final long REFERENCE_HEAP_MIB = 2048;

  private HeapShare() {}

  /** {@code atReference} scaled to this JVM's maximum heap. */
  static long scaled(long atReference) {
    return scaled(atReference, Runtime.getRuntime().maxMemory());
  }

  static int scaled(int atReference) {
    return (int) scaled((long) atReference);
  }

  /** {@code atReference} scaled to a maximum heap of {@code maxHeapBytes}; at least 1. */
  static long scaled(long atReference, long maxHeapBytes) {
    double share = Math.min(1.0, (double) maxHeapBytes / (REFERENCE_HEAP_MIB << 20));
    return Math.max(1, (long) (atReference * share));
  }
}
