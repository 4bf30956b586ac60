package dev.spanprof.analysis.internal;

/**
 * HdrHistogram's counts-array layout for a number of significant digits and a lowest
 * discernible value of 1, the one spanprof's histograms use: which index a value counts at, and
 * the lowest value of an index. A busy distribution slice counts its values in a plain array by
 * this layout, and the counts go into an HdrHistogram of the same digits at the same indexes, so
 * nothing is rounded differently; the ranking counts its durations by it too.
 *
 * <p>The formulas are HdrHistogram 2.2's {@code countsArrayIndex} and {@code valueFromIndex}
 * (package-private there); {@code CountsIndexTest} pins them to the library's own rounding.
 */
public final class CountsIndex {

  /** The most significant digits HdrHistogram takes. */
  public static final int MAX_SIGNIFICANT_DIGITS = 5;
  /** The layout per number of significant digits, shared by every series. */
  private static final CountsIndex[] BY_DIGITS = new CountsIndex[MAX_SIGNIFICANT_DIGITS + 1];

  static {
    for (int digits = 0; digits <= MAX_SIGNIFICANT_DIGITS; digits++) {
      BY_DIGITS[digits] = new CountsIndex(digits);
    }
  }

  private final int subBucketHalfCountMagnitude;
  private final int subBucketHalfCount;
  private final long subBucketMask;
  private final int leadingZeroCountBase;

  private CountsIndex(int significantDigits) {
    long largestValueWithSingleUnitResolution = 2 * (long) Math.pow(10, significantDigits);
    int subBucketCountMagnitude =
        (int) Math.ceil(Math.log(largestValueWithSingleUnitResolution) / Math.log(2));
    this.subBucketHalfCountMagnitude = subBucketCountMagnitude - 1;
    int subBucketCount = 1 << subBucketCountMagnitude;
    this.subBucketHalfCount = subBucketCount / 2;
    this.subBucketMask = subBucketCount - 1;
    this.leadingZeroCountBase = 64 - subBucketCountMagnitude;
  }

  /** The layout for {@code significantDigits}, 0 to {@link #MAX_SIGNIFICANT_DIGITS}. */
  public static CountsIndex forDigits(int significantDigits) {
    return BY_DIGITS[significantDigits];
  }

  /** The index {@code value} (≥ 0) counts at. */
  public int of(long value) {
    int bucketIndex = leadingZeroCountBase - Long.numberOfLeadingZeros(value | subBucketMask);
    int subBucketIndex = (int) (value >>> bucketIndex);
    return ((bucketIndex + 1) << subBucketHalfCountMagnitude)
        + (subBucketIndex - subBucketHalfCount);
  }

  /** The lowest value that counts at {@code index}. */
  public long lowestValueAt(int index) {
    int bucketIndex = (index >> subBucketHalfCountMagnitude) - 1;
    int subBucketIndex = (index & (subBucketHalfCount - 1)) + subBucketHalfCount;
    if (bucketIndex < 0) {
      subBucketIndex -= subBucketHalfCount;
      bucketIndex = 0;
    }
    return (long) subBucketIndex << bucketIndex;
  }

  /**
   * How long a counts array must be for {@code index}: through the end of its bucket's half, so
   * that a growing array is copied once per bucket rather than once per index.
   */
  public int lengthFor(int index) {
    return (index | (subBucketHalfCount - 1)) + 1;
  }
}
