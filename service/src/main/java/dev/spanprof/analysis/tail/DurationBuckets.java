package dev.spanprof.analysis.tail;

/**
 * Durations in buckets of 5 % relative width (semantics.md §6 resolves θ to one): bucket k holds
 * [lowerBound(k), lowerBound(k + 1)), lowerBound(k) = ⌈1.05^k⌉ ns, and bucket -1 holds 0. Some
 * small k share a lower bound; such a bucket is empty, as a duration goes to the last of them.
 */
final class DurationBuckets {

  static final double GROWTH = 1.05;
  private static final double LOG_GROWTH = Math.log(GROWTH);

  private DurationBuckets() {}

  static int bucketOf(long durationNs) {
    if (durationNs <= 0) {
      return -1;
    }
    int k = (int) Math.floor(Math.log(durationNs) / LOG_GROWTH);
    // The logarithm is a float: step to the exact bucket.
    while (k > 0 && lowerBound(k) > durationNs) {
      k--;
    }
    while (lowerBound(k + 1) <= durationNs) {
      k++;
    }
    return k;
  }

  static long lowerBound(int bucket) {
    return bucket < 0 ? 0 : (long) Math.ceil(Math.pow(GROWTH, bucket));
  }
}
