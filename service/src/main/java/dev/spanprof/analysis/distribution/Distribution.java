package dev.spanprof.analysis.distribution;

import dev.spanprof.analysis.internal.CountsIndex;
import dev.spanprof.span.TraceId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.HdrHistogram.AbstractHistogram;
import org.HdrHistogram.Histogram;

/**
 * One distribution series (semantics.md §5): values in nanoseconds, recorded into HdrHistogram
 * with a stated number of significant digits (2 digits: every reported value within 1 % of the
 * recorded one), in two views — cumulative since start and a sliding window.
 *
 * <p><b>Why nanoseconds.</b> Span times are nanoseconds in OTLP and everywhere else in spanprof,
 * so nothing is converted or truncated on the way in. HdrHistogram's cost depends on the
 * relative precision, not the unit: an auto-resizing histogram covers 1 ns to hours (and beyond)
 * at the same 1 %, and the young and encoded forms store only what was recorded — an idle series
 * costs about 320 bytes, a busy one's current slice 4 bytes a value and then a count array up to
 * its highest value (9 KB up to 10 ms, 14 KB up to 10 s), where a dense 3-digit histogram over
 * 1 µs to 1 h costs about 270 KB.
 *
 * <p><b>Hot path.</b> {@link #record} writes into an open window slice, writers and readers
 * of one series taking turns on its lock (there is no global lock; a reader holds it for one
 * series' copies). A series' lock is its own monitor, or that of a series it was made to share
 * it with, so that {@link #recordEach} takes one lock for a span's three series. No HdrHistogram
 * {@code Recorder}: its two interval histograms per view were a fifth of a busy series' memory,
 * and its packed multi-writer form stalls a flip forever in HdrHistogram 2.2.2 when two threads
 * record into it (reproduced in isolation).
 *
 * <p>A slice counts its values by HdrHistogram's counts layout ({@link CountsIndex}): while
 * young as each value's index, in the order they came, and after {@link #DENSE_AFTER_VALUES}
 * values in a plain array of counts over its range. The next slice starts young again, so only
 * series busy now pay for the dense form. The counts join a histogram when the slice completes
 * or is read.
 *
 * <p><b>Window by arrival</b> (semantics.md §7). A value belongs to the slice of its trace's
 * arrival, and a trace is analysed a trace timeout after it: so two slices are open, the current
 * one and the one before it, which completes at the next {@link #advance(long)}, a grace past its
 * end. {@link #record(long, TraceId, long, long, long, long)} picks one by the arrival's slice.
 *
 * <p><b>Window and memory.</b> {@link #advance} completes the earlier open slice: it is added to
 * the sum of all completed slices (the cumulative view is that sum and the open slices), and kept
 * until it leaves the window (the window view is the window's completed slices and the open
 * ones). Both the sum and the slices are kept in HdrHistogram's V2 encoding, about a fifth of
 * the bytes of a packed histogram: a series holds live counts for its open slices only, and its
 * views are added up when read. 10 000 busy series took 185 MB while the two sums were
 * live packed histograms, and take 81 MB encoded, their current slices full (BENCHMARKS.md).
 *
 * <p><b>Coordinated omission.</b> With an expected interval, every value is also recorded with
 * {@link AbstractHistogram#recordValueWithExpectedInterval}, which back-fills the samples a
 * stalled measurement missed; both views are kept ({@code correction="raw|corrected"}).
 */
public final class Distribution {

  /**
   * How many values a young window slice keeps before it moves to dense counts: 8 KB of indexes,
   * about what dense counts up to 10 ms take (9 KB). So a slice takes at most 4 bytes a value
   * (with the array's growth, 6) until it holds thousands, and the young slices alive at once are
   * bounded by the values recorded in two slices (two are open): at most 3 × 100k spans/s × 20 s
   * × 6 B, about 36 MB, at 100k spans/s. A slice lets its arrays go when it completes.
   */
  static final int DENSE_AFTER_VALUES = 2048;

  private static final long NO_EXEMPLAR = Long.MIN_VALUE;

  /** How long a bucket's exemplar is kept before a newer value replaces it. */
  static final long EXEMPLAR_REFRESH_MILLIS = 1_000;

  private final long expectedIntervalNanos;
  /** Shared by the registry's series, and never changed: it stays in cache for all of them. */
  private final long[] boundariesNanos;
  /** Set once the registry has removed this series: a holder of it should look it up again. */
  private volatile boolean retired;
  /**
   * The cumulative view's value at each of {@link #RANKS}, as of the last flush; empty before the
   * first value.
   */
  private volatile long[] valuesAtRanks = new long[0];
  /** Whether {@link #percentileRank} is answered; only duration series are asked. */
  private final boolean ranked;

  /** What the fields below are guarded by: this, or the lock of a series sharing it. */
  private final Object lock;
  private final SeriesViews raw;
  private final SeriesViews corrected; // null when the series does not correct
  /**
   * When this series last recorded. Under the lock, not volatile: a volatile write is a full
   * fence on x86, which each series a trace touched paid once per trace; its one reader, the
   * registry's expiry check at a window advance, takes the lock.
   */
  private long lastRecordNanos;
  /**
   * The slice of arrivals the current open slice holds (semantics.md §7); before the first
   * {@link #advance(long)}, every value goes to the current one.
   */
  private long currentSlice;
  private double sumNanos;
  private boolean recordedSinceFlush;
  /** Per export bucket (the last for +Inf), the sampled value, or null. */
  private final Exemplar[] exemplars;
  /**
   * When each bucket's exemplar was sampled, {@link #NO_EXEMPLAR} for none: a record reads this
   * one array to decide, not the exemplar object.
   */
  private final long[] exemplarMillis;

  /**
   * @param boundariesNanos the export's bucket upper bounds, ascending, handed over: not copied,
   *     so the caller must not change them; one exemplar is kept per bucket (and one for +Inf)
   * @param expectedIntervalNanos 0 for no coordinated-omission correction
   */
  public Distribution(int significantDigits, int slices, long[] boundariesNanos,
      long expectedIntervalNanos, long nowNanos) {
    this(significantDigits, slices, boundariesNanos, expectedIntervalNanos, nowNanos, true);
  }

  /**
   * @param ranked whether the series keeps the table {@link #percentileRank} reads (2.2 KB); a
   *     series nobody asks for ranks need not
   */
  public Distribution(int significantDigits, int slices, long[] boundariesNanos,
      long expectedIntervalNanos, long nowNanos, boolean ranked) {
    this(significantDigits, slices, boundariesNanos, expectedIntervalNanos, nowNanos, ranked,
        null);
  }

  /**
   * @param lockedWith a series whose lock this one takes too (see {@link #recordEach}), or null
   *     for a lock of its own
   */
  public Distribution(int significantDigits, int slices, long[] boundariesNanos,
      long expectedIntervalNanos, long nowNanos, boolean ranked, Distribution lockedWith) {
    this(significantDigits, slices, boundariesNanos, expectedIntervalNanos, nowNanos, ranked,
        lockedWith, Long.MIN_VALUE);
  }

  /**
   * @param currentSlice the slice of arrivals the current open slice holds ({@link
   *     #advance(long)})
   */
  public Distribution(int significantDigits, int slices, long[] boundariesNanos,
      long expectedIntervalNanos, long nowNanos, boolean ranked, Distribution lockedWith,
      long currentSlice) {
    if (slices < 2) {
      throw new IllegalArgumentException("a window of " + slices + " slices: it takes at least "
          + "2, the two open ones");
    }
    this.lock = lockedWith == null ? this : lockedWith.lock;
    this.ranked = ranked;
    this.boundariesNanos = boundariesNanos;
    this.exemplars = new Exemplar[boundariesNanos.length + 1];
    this.exemplarMillis = new long[boundariesNanos.length + 1];
    Arrays.fill(exemplarMillis, NO_EXEMPLAR);
    this.expectedIntervalNanos = expectedIntervalNanos;
    this.raw = new SeriesViews(significantDigits, slices);
    this.corrected =
        expectedIntervalNanos > 0 ? new SeriesViews(significantDigits, slices) : null;
    this.lastRecordNanos = nowNanos;
    this.currentSlice = currentSlice;
  }

  /** A recent sample of one bucket, to link the metric to a trace. */
  public record Exemplar(long valueNanos, TraceId traceId, long spanId, long epochMillis) {}

  /**
   * Records a value; waits only for another writer of this series, or of one sharing its lock.
   * Negative values count as 0. The value becomes its bucket's exemplar when the bucket has none,
   * or one at least {@link #EXEMPLAR_REFRESH_MILLIS} older.
   */
  public void record(long valueNanos, TraceId traceId, long spanId, long nowNanos, long epochMillis) {
    synchronized (lock) {
      recordHeld(valueNanos, traceId, spanId, nowNanos, epochMillis, false);
    }
  }

  /**
   * As {@link #record}, into the open slice of {@code arrivalSlice} (semantics.md §7): the current
   * one, or the one before it for an earlier slice (a slice before that one has completed: its
   * value goes to the earliest open one).
   */
  public void record(long valueNanos, TraceId traceId, long spanId, long nowNanos,
      long epochMillis, long arrivalSlice) {
    synchronized (lock) {
      recordHeld(valueNanos, traceId, spanId, nowNanos, epochMillis, arrivalSlice < currentSlice);
    }
  }

  /**
   * Records one value into each of three series, as {@link #record} does, under their lock taken
   * once when they share it. A lock is a locked instruction, which waits for the memory reads
   * before it: three would wait for each record's cold count in turn, where one lets the three
   * reads overlap ({@code bench/turns.sh} on {@code PipelineBenchmark}). Series that do not
   * share a lock are recorded one at a time.
   */
  public static void recordEach(Distribution first, long firstNanos, Distribution second,
      long secondNanos, Distribution third, long thirdNanos, TraceId traceId, long spanId,
      long nowNanos, long epochMillis, long arrivalSlice) {
    Object lock = first.lock;
    if (second.lock != lock || third.lock != lock) {
      first.record(firstNanos, traceId, spanId, nowNanos, epochMillis, arrivalSlice);
      second.record(secondNanos, traceId, spanId, nowNanos, epochMillis, arrivalSlice);
      third.record(thirdNanos, traceId, spanId, nowNanos, epochMillis, arrivalSlice);
      return;
    }
    synchronized (lock) {
      first.recordHeld(firstNanos, traceId, spanId, nowNanos, epochMillis,
          arrivalSlice < first.currentSlice);
      second.recordHeld(secondNanos, traceId, spanId, nowNanos, epochMillis,
          arrivalSlice < second.currentSlice);
      third.recordHeld(thirdNanos, traceId, spanId, nowNanos, epochMillis,
          arrivalSlice < third.currentSlice);
    }
  }

  /** {@link #record}'s work under the lock, which the caller holds. */
  private void recordHeld(long valueNanos, TraceId traceId, long spanId, long nowNanos,
      long epochMillis, boolean earlier) {
    lastRecordNanos = nowNanos;
    long value = Math.max(0, valueNanos);
    raw.record(value, 0, earlier);
    if (corrected != null) {
      corrected.record(value, expectedIntervalNanos, earlier);
    }
    sumNanos += value;
    recordedSinceFlush = true;
    if (traceId != null) {
      int bucket = bucketOf(value);
      // Sampled, as Prometheus clients sample them: a scrape shows one exemplar per bucket, so
      // a fresh one a second is plenty, and a busy series does not allocate one per value.
      long sampledMillis = exemplarMillis[bucket];
      if (sampledMillis == NO_EXEMPLAR
          || epochMillis - sampledMillis >= EXEMPLAR_REFRESH_MILLIS) {
        exemplars[bucket] = new Exemplar(value, traceId, spanId, epochMillis);
        exemplarMillis[bucket] = epochMillis;
      }
    }
  }

  /**
   * The export bucket of {@code valueNanos}: the first whose upper bound is not below it, the
   * +Inf bucket past the last. A halving search whose step is a conditional move: which way a
   * step goes is as good as random, and {@link Arrays#binarySearch} mispredicted a branch at each
   * step ({@code HistogramBenchmark.lookupAndRecord}); the boundaries are few and shared by
   * every series, so they stay in cache, where a conditional move does not wait for a load.
   */
  private int bucketOf(long valueNanos) {
    long[] bounds = boundariesNanos;
    if (bounds.length == 0) {
      return 0;
    }
    int base = 0;
    for (int n = bounds.length; n > 1; ) {
      int half = n >>> 1;
      base = bounds[base + half - 1] < valueNanos ? base + half : base;
      n -= half;
    }
    return bounds[base] < valueNanos ? base + 1 : base;
  }

  /** When this series last recorded, on the monotonic clock passed to {@link #record}. */
  public long lastRecordNanos() {
    synchronized (lock) {
      return lastRecordNanos;
    }
  }

  /** Whether the registry has removed this series (idle past its expiry). */
  public boolean retired() {
    return retired;
  }

  void retire() {
    retired = true;
  }

  public boolean corrects() {
    return corrected != null;
  }

  /** Brings {@link #percentileRank} up to date with everything recorded so far. */
  public void flush() {
    synchronized (lock) {
      if (recordedSinceFlush && ranked) {
        valuesAtRanks = valuesAtRanks(raw.cumulative());
        recordedSinceFlush = false;
      }
    }
  }

  /**
   * Completes the earlier open window slice, dropping the oldest beyond the window; the current
   * one becomes the earlier and a new one opens. Brings {@link #percentileRank} up to date as
   * {@link #flush} does.
   */
  public void advance() {
    synchronized (lock) {
      advanceHeld();
    }
  }

  /**
   * As {@link #advance}; the slice that opens is {@code currentSlice}: a value recorded for an
   * earlier one goes to the slice before it ({@link #record(long, TraceId, long, long, long,
   * long)}).
   */
  public void advance(long currentSlice) {
    synchronized (lock) {
      advanceHeld();
      this.currentSlice = currentSlice;
    }
  }

  private void advanceHeld() {
    AbstractHistogram cumulative = raw.advance();
    // The whole cumulative view, ranked as it is, before the corrected views' advance reuses the
    // thread's histogram it is in.
    if (recordedSinceFlush && ranked) {
      valuesAtRanks = valuesAtRanks(cumulative != null ? cumulative : raw.cumulative());
      recordedSinceFlush = false;
    }
    if (corrected != null) {
      corrected.advance();
    }
  }

  /** Copies of both views, with everything recorded so far, in histograms of their own. */
  public Snapshot snapshot() {
    return read(new Reader(raw.significantDigits()));
  }

  /**
   * Both views, with everything recorded so far, added up in {@code reader}'s histograms: valid
   * until its next read. A scrape reads every series through one reader.
   *
   * @throws IllegalArgumentException when the reader was made for other significant digits
   */
  public Snapshot read(Reader reader) {
    synchronized (lock) {
      if (reader.significantDigits != raw.significantDigits()) {
        throw new IllegalArgumentException("a reader of " + reader.significantDigits
            + " significant digits for a series of " + raw.significantDigits());
      }
      raw.addTo(reader.cumulative, reader.window);
      if (corrected != null) {
        corrected.addTo(reader.cumulativeCorrected, reader.windowCorrected);
      }
      return new Snapshot(reader.cumulative, reader.window,
          corrected == null ? null : reader.cumulativeCorrected,
          corrected == null ? null : reader.windowCorrected, sumNanos, exemplarList());
    }
  }

  /**
   * Where {@link #read} adds a series' views up: dense histograms, emptied at each read, for one
   * thread at a time. Adding into packed histograms, as copies of the views once were, walks
   * their index for every bucket and grows their storage bucket by bucket: 1 to 3.4 ms for one
   * busy series, which a scrape paid per series ({@code ScrapeBenchmark}).
   */
  public static final class Reader {
    private final int significantDigits;
    private final Histogram cumulative;
    private final Histogram window;
    private final Histogram cumulativeCorrected;
    private final Histogram windowCorrected;

    /** @param significantDigits those of the series it reads (the registry's) */
    public Reader(int significantDigits) {
      this.significantDigits = significantDigits;
      this.cumulative = new Histogram(significantDigits);
      this.window = new Histogram(significantDigits);
      this.cumulativeCorrected = new Histogram(significantDigits);
      this.windowCorrected = new Histogram(significantDigits);
    }
  }

  /**
   * The ranks (percent) at which the rank table keeps the cumulative view's value: every 1 % up
   * to 90, every 0.1 % up to 99, every 0.01 % up to 100. Denser toward the tail, where a span's
   * rank says the most; 281 values whatever the series' spread (a table of every recorded
   * bucket took up to 15 KB per busy series, a third of its memory).
   */
  static final double[] RANKS = ranks();

  private static double[] ranks() {
    double[] ranks = new double[91 + 90 + 100];
    int i = 0;
    for (int r = 0; r <= 90; r++) {
      ranks[i++] = r;
    }
    for (int r = 1; r <= 90; r++) {
      ranks[i++] = 90 + r / 10.0;
    }
    for (int r = 1; r <= 100; r++) {
      ranks[i++] = 99 + r / 100.0;
    }
    return ranks;
  }

  /**
   * The rank (0–100) of {@code valueNanos} in the cumulative view as of the last {@link #flush}
   * (the window advances flush every slice): the highest of {@link #RANKS} at which the view's
   * value is at or below it, so at most one grid step (1 %, 0.1 % past 90, 0.01 % past 99) under
   * the exact share of values at or below it. Always 0 for a series made without ranks.
   *
   * <p>A binary search, asked for every span forwarded: about 45 ns with the table in cache, 90
   * among 10 000 series ({@code HistogramBenchmark.percentileRank}). A predicted branch lets the
   * core fetch the next step's value ahead, where a conditional move waits for each load:
   * branch-free, it took 25 ns in cache but 195 among 10 000 series, whose tables are in memory
   * as in the service.
   */
  public double percentileRank(long valueNanos) {
    long[] values = valuesAtRanks;
    if (values.length == 0) {
      return 0;
    }
    int index = Arrays.binarySearch(values, valueNanos);
    if (index < 0) {
      index = -index - 2; // the last value below
    } else {
      while (index + 1 < values.length && values[index + 1] == valueNanos) {
        index++; // the highest rank among equal values
      }
    }
    return index < 0 ? 0 : RANKS[index];
  }

  /**
   * The histogram's value at each of {@link #RANKS}, in one pass over its counts from its lowest
   * value's to its highest's: HdrHistogram's iterator starts at the first index, below the
   * shortest duration, and took two fifths of a window advance ({@code WindowAdvanceBenchmark}).
   */
  private static long[] valuesAtRanks(AbstractHistogram histogram) {
    long total = histogram.getTotalCount();
    long[] values = new long[RANKS.length];
    CountsIndex layout = CountsIndex.forDigits(histogram.getNumberOfSignificantValueDigits());
    int next = 0;
    long atOrBelow = 0;
    int last = layout.of(histogram.getMaxValue());
    for (int index = layout.of(histogram.getMinNonZeroValue()); index <= last; index++) {
      long lowest = layout.lowestValueAt(index);
      long count = histogram.getCountAtValue(lowest);
      if (count == 0) {
        continue;
      }
      atOrBelow += count;
      // The value at rank r: the first bucket holding at least r % of the values.
      while (next < RANKS.length && atOrBelow >= Math.ceil(RANKS[next] / 100 * total)) {
        values[next++] = histogram.highestEquivalentValue(lowest);
      }
    }
    while (next < RANKS.length) {
      values[next++] = histogram.highestEquivalentValue(histogram.getMaxValue());
    }
    return values;
  }

  /** About the bytes the counts of this series take now: its live arrays and its encodings. */
  public long footprintBytes() {
    synchronized (lock) {
      return raw.footprintBytes() + (corrected == null ? 0 : corrected.footprintBytes());
    }
  }

  private List<Exemplar> exemplarList() {
    List<Exemplar> list = new ArrayList<>(exemplars.length);
    for (Exemplar exemplar : exemplars) {
      list.add(exemplar);
    }
    return list;
  }

  /**
   * Both views at one moment; the corrected ones are null when the series does not correct.
   *
   * @param exemplars per export bucket (the last for +Inf), null where none was seen
   */
  public record Snapshot(
      AbstractHistogram cumulative,
      AbstractHistogram window,
      AbstractHistogram cumulativeCorrected,
      AbstractHistogram windowCorrected,
      double sumNanos,
      List<Exemplar> exemplars) {}
}
