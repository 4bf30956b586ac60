package dev.spanprof.analysis.distribution;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Every distribution series, bounded: at most {@code maxSeries} label sets; a new label set
 * beyond that records into its kind's overflow series (labels {@code otel_metric_overflow=
 * "true"}) and is counted. A series not recorded into for {@code expiry} is removed.
 *
 * <p>Thread-safe. Looking up an existing series is a concurrent-map read; the limit is checked
 * only when a new series would be created.
 */
public final class DistributionRegistry {

  /** What a series measures; the metric it is exported as is the adapter's concern. */
  public enum Kind {
    DURATION,
    SELF_TIME,
    CRITICAL_PATH,
    TRACE_TTX,
    TRACE_TTC
  }

  /**
   * Label names and values, in order; the identity of a series within its kind. A key is built
   * for every value recorded, so its hash is computed once and equality is written out rather
   * than left to the record's reflective default.
   */
  public static final class SeriesKey {
    private final Kind kind;
    private final List<String> labelNames;
    private final List<String> labelValues;
    private final int hash;

    public SeriesKey(Kind kind, List<String> labelNames, List<String> labelValues) {
      this.kind = Objects.requireNonNull(kind, "kind");
      this.labelNames = List.copyOf(labelNames);
      this.labelValues = List.copyOf(labelValues);
      if (labelNames.size() != labelValues.size()) {
        throw new IllegalArgumentException("label names " + labelNames + " and values "
            + labelValues + " differ in length");
      }
      this.hash = (kind.hashCode() * 31 + this.labelNames.hashCode()) * 31
          + this.labelValues.hashCode();
    }

    public Kind kind() {
      return kind;
    }

    public List<String> labelNames() {
      return labelNames;
    }

    public List<String> labelValues() {
      return labelValues;
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof SeriesKey that
          && hash == that.hash
          && kind == that.kind
          && sameElements(labelValues, that.labelValues)
          && sameElements(labelNames, that.labelNames);
    }

    // Indexed, not List.equals: an immutable list's equals allocates iterators, per lookup.
    private static boolean sameElements(List<String> a, List<String> b) {
      if (a.size() != b.size()) {
        return false;
      }
      for (int i = 0; i < a.size(); i++) {
        if (!a.get(i).equals(b.get(i))) {
          return false;
        }
      }
      return true;
    }

    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public String toString() {
      return "SeriesKey[kind=" + kind + ", labelNames=" + labelNames + ", labelValues="
          + labelValues + ']';
    }

    /** The value of label {@code name}, or null. */
    public String label(String name) {
      int index = labelNames.indexOf(name);
      return index < 0 ? null : labelValues.get(index);
    }
  }

  public static final String OVERFLOW_LABEL = "otel_metric_overflow";

  private final int significantDigits;
  private final int slices;
  private final long[] boundariesNanos;
  private final int maxSeries;
  private final long expiryNanos;
  private final ConcurrentHashMap<SeriesKey, Distribution> series = new ConcurrentHashMap<>();
  private final Map<Kind, AtomicLong> overflowSamples = new EnumMap<>(Kind.class);
  /** The slice of arrivals the series' current open slices hold; a new series starts there. */
  private volatile long currentSlice = Long.MIN_VALUE;

  public DistributionRegistry(int significantDigits, int slices, long[] boundariesNanos,
      int maxSeries, Duration expiry) {
    if (significantDigits < 0 || significantDigits > 5) {
      throw new IllegalArgumentException(
          "significant digits must be 0 to 5 (HdrHistogram), was " + significantDigits);
    }
    this.significantDigits = significantDigits;
    this.slices = slices;
    this.boundariesNanos = boundariesNanos.clone();
    this.maxSeries = maxSeries;
    this.expiryNanos = expiry.toNanos();
    for (Kind kind : Kind.values()) {
      overflowSamples.put(kind, new AtomicLong());
    }
  }

  /**
   * The series of {@code key}, created if there is room; else its kind's overflow series, and
   * the sample about to be recorded is counted as overflowed.
   *
   * @param expectedIntervalNanos for a new series: 0, or the interval to correct against
   * @param nowNanos the monotonic clock the expiry is measured on
   */
  public Distribution series(SeriesKey key, long expectedIntervalNanos, long nowNanos) {
    return series(key, expectedIntervalNanos, nowNanos, null);
  }

  /**
   * As {@link #series(SeriesKey, long, long)}; a series it creates for {@code key} shares the
   * lock of {@code lockedWith} (see {@link Distribution#recordEach}) unless that is null. An
   * overflow series, which every key of its kind may record into, keeps a lock of its own.
   */
  public Distribution series(SeriesKey key, long expectedIntervalNanos, long nowNanos,
      Distribution lockedWith) {
    Distribution existing = series.get(key);
    if (existing != null) {
      return existing;
    }
    if (series.size() >= maxSeries) {
      overflowSamples.get(key.kind()).incrementAndGet();
      return series.computeIfAbsent(overflowKey(key.kind()),
          k -> newSeries(k, 0, nowNanos, null));
    }
    return series.computeIfAbsent(key,
        k -> newSeries(k, expectedIntervalNanos, nowNanos, lockedWith));
  }

  private Distribution newSeries(SeriesKey key, long expectedIntervalNanos, long nowNanos,
      Distribution lockedWith) {
    // Spans are ranked within their operation's durations only (spanprof.duration_percentile).
    return new Distribution(significantDigits, slices, boundariesNanos, expectedIntervalNanos,
        nowNanos, key.kind() == Kind.DURATION, lockedWith, currentSlice);
  }

  /** The series of {@code key} if it exists; never creates one. */
  public Distribution get(SeriesKey key) {
    return series.get(key);
  }

  /** The overflow series' key of {@code kind}. */
  public static SeriesKey overflowKey(Kind kind) {
    return new SeriesKey(kind, List.of(OVERFLOW_LABEL), List.of("true"));
  }

  /** Whether {@code distribution} is {@code kind}'s overflow series. */
  public boolean isOverflow(Kind kind, Distribution distribution) {
    return series.get(overflowKey(kind)) == distribution;
  }

  /** Samples recorded into {@code kind}'s overflow series because the series limit was reached. */
  public long overflowSamples(Kind kind) {
    return overflowSamples.get(kind).get();
  }

  /** Every live series. */
  public Map<SeriesKey, Distribution> all() {
    return Map.copyOf(series);
  }

  /** A reader of this registry's series, for one thread at a time ({@link Distribution#read}). */
  public Distribution.Reader reader() {
    return new Distribution.Reader(significantDigits);
  }

  public int size() {
    return series.size();
  }

  /** Advances every series' window by a slice, and removes series idle for the expiry. */
  public void advance(long nowNanos) {
    advance(nowNanos, currentSlice);
  }

  /**
   * As {@link #advance(long)}, the slice that opens holding the arrivals of slice {@code
   * currentSlice} (semantics.md §7): values recorded for an earlier slice go to the open slice
   * before it ({@link Distribution#advance(long)}).
   */
  public void advance(long nowNanos, long currentSlice) {
    // Before the series: one made meanwhile starts at the new slice, advanced or not.
    this.currentSlice = currentSlice;
    series.forEach((key, distribution) -> {
      if (nowNanos - distribution.lastRecordNanos() >= expiryNanos) {
        series.remove(key, distribution);
        distribution.retire();
      } else {
        distribution.advance(currentSlice);
      }
    });
  }

  /** Where new series start before the first {@link #advance(long, long)}. */
  public void startAt(long currentSlice) {
    this.currentSlice = currentSlice;
  }

  /** The export's bucket upper bounds in nanoseconds. */
  public long[] boundariesNanos() {
    return boundariesNanos.clone();
  }
}
