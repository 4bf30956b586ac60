package dev.spanprof.analysis;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.DoubleAdder;
import org.HdrHistogram.AbstractHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.HdrHistogram.PackedHistogram;
import org.HdrHistogram.SingleWriterRecorder;

/**
 * One distribution series (semantics.md §5): values in nanoseconds, recorded into HdrHistogram
 * with a stated number of significant digits (2 digits: every reported value within 1 % of the
 * recorded one), in two views — cumulative since start and a sliding window.
 *
 * <p><b>Why nanoseconds.</b> Span times are nanoseconds in OTLP and everywhere else in spanprof,
 * so nothing is converted or truncated on the way in. HdrHistogram's cost depends on the
 * relative precision, not the unit: an auto-resizing histogram covers 1 ns to hours (and beyond)
 * at the same 1 %, and the packed form only stores the buckets that hold values — a series seen a
 * thousand times costs about 700 bytes, an idle one about 320, where a dense 3-digit histogram
 * over 1 µs to 1 h costs about 270 KB.
 *
 * <p><b>Hot path.</b> {@link #record} writes into a packed {@link SingleWriterRecorder}; writers
 * of one series take turns on that series' own monitor (there is no global lock, and the reader
 * never blocks a writer: {@link #flush} swaps interval histograms through the recorder's
 * phaser). Not the multi-writer packed {@code Recorder}: in HdrHistogram 2.2.2 its packed
 * concurrent histogram stalls a flip forever when two threads record into it (reproduced in
 * isolation: two writers, a reader taking interval histograms every 200 ms, stuck within a
 * second; the same test with a single-writer recorder and writers taking turns records 175
 * million values in 20 s). {@link #flush} moves what was recorded since into the cumulative
 * histogram and the current window slice; {@link #advance} also starts a new slice and drops
 * the oldest, so the window is the last {@code slices} slices.
 *
 * <p><b>Coordinated omission.</b> With an expected interval, every value is also recorded with
 * {@link SingleWriterRecorder#recordValueWithExpectedInterval}, which back-fills the samples a stalled
 * measurement missed; both views are kept ({@code correction="raw|corrected"}).
 */
public final class Distribution {

  /** How long a bucket's exemplar is kept before a newer value replaces it. */
  static final long EXEMPLAR_REFRESH_MILLIS = 1_000;

  private final SingleWriterRecorder raw;
  private final SingleWriterRecorder corrected;
  private final long expectedIntervalNanos;
  private final int significantDigits;
  private final int slices;
  private final long[] boundariesNanos;
  private final AtomicReferenceArray<Exemplar> exemplars;
  private final DoubleAdder sumNanos = new DoubleAdder();
  private volatile long lastRecordNanos;

  // Guarded by this.
  private final PackedHistogram cumulative;
  private final PackedHistogram cumulativeCorrected;
  private final ArrayDeque<PackedHistogram> window = new ArrayDeque<>();
  private final ArrayDeque<PackedHistogram> windowCorrected = new ArrayDeque<>();
  private Histogram recycled;
  private Histogram recycledCorrected;
  /**
   * The cumulative view's value at each of {@link #RANKS}, as of the last flush; empty before the
   * first value.
   */
  private volatile long[] valuesAtRanks = new long[0];

  /**
   * @param boundariesNanos the export's bucket upper bounds, ascending; one exemplar is kept per
   *     bucket (and one for +Inf)
   * @param expectedIntervalNanos 0 for no coordinated-omission correction
   */
  public Distribution(int significantDigits, int slices, long[] boundariesNanos,
      long expectedIntervalNanos, long nowNanos) {
    this.significantDigits = significantDigits;
    this.slices = slices;
    this.boundariesNanos = boundariesNanos.clone();
    this.exemplars = new AtomicReferenceArray<>(boundariesNanos.length + 1);
    this.expectedIntervalNanos = expectedIntervalNanos;
    this.raw = new SingleWriterRecorder(significantDigits, true);
    this.corrected = expectedIntervalNanos > 0 ? new SingleWriterRecorder(significantDigits, true) : null;
    this.cumulative = new PackedHistogram(significantDigits);
    this.cumulativeCorrected = corrected != null ? new PackedHistogram(significantDigits) : null;
    this.window.addLast(new PackedHistogram(significantDigits));
    if (corrected != null) {
      this.windowCorrected.addLast(new PackedHistogram(significantDigits));
    }
    this.lastRecordNanos = nowNanos;
  }

  /** A recent sample of one bucket, to link the metric to a trace. */
  public record Exemplar(long valueNanos, TraceId traceId, long spanId, long epochMillis) {}

  /**
   * Records a value; waits only for another writer of this series. Negative values count as 0.
   * The value becomes its bucket's exemplar when the bucket has none, or one at least {@link
   * #EXEMPLAR_REFRESH_MILLIS} older.
   */
  public void record(long valueNanos, TraceId traceId, long spanId, long nowNanos, long epochMillis) {
    long value = Math.max(0, valueNanos);
    synchronized (raw) {
      raw.recordValue(value);
      if (corrected != null) {
        corrected.recordValueWithExpectedInterval(value, expectedIntervalNanos);
      }
    }
    sumNanos.add(value);
    lastRecordNanos = nowNanos;
    if (traceId != null) {
      int search = Arrays.binarySearch(boundariesNanos, value);
      int bucket = search >= 0 ? search : -search - 1;
      Exemplar current = exemplars.get(bucket);
      // Sampled, as Prometheus clients sample them: a scrape shows one exemplar per bucket, so a
      // fresh one a second is plenty, and a busy series does not allocate one per value.
      if (current == null || epochMillis - current.epochMillis() >= EXEMPLAR_REFRESH_MILLIS) {
        exemplars.set(bucket, new Exemplar(value, traceId, spanId, epochMillis));
      }
    }
  }

  /** When this series last recorded, on the monotonic clock passed to {@link #record}. */
  public long lastRecordNanos() {
    return lastRecordNanos;
  }

  public boolean corrects() {
    return corrected != null;
  }

  /** Moves what was recorded since the last flush into the cumulative view and current slice. */
  public synchronized void flush() {
    recycled = raw.getIntervalHistogram(recycled);
    if (recycled.getTotalCount() > 0) {
      cumulative.add(recycled);
      valuesAtRanks = valuesAtRanks(cumulative);
    }
    window.peekLast().add(recycled);
    if (corrected != null) {
      recycledCorrected = corrected.getIntervalHistogram(recycledCorrected);
      cumulativeCorrected.add(recycledCorrected);
      windowCorrected.peekLast().add(recycledCorrected);
    }
  }

  /** Flushes, then starts a new window slice, dropping the oldest beyond {@code slices}. */
  public synchronized void advance() {
    flush();
    advance(window);
    if (corrected != null) {
      advance(windowCorrected);
    }
  }

  private void advance(ArrayDeque<PackedHistogram> slicesOfWindow) {
    slicesOfWindow.addLast(new PackedHistogram(significantDigits));
    while (slicesOfWindow.size() > slices) {
      slicesOfWindow.removeFirst();
    }
  }

  /** Copies of both views (flushed first, so everything recorded so far is in them). */
  public synchronized Snapshot snapshot() {
    flush();
    return new Snapshot(cumulative.copy(), merge(window),
        corrected == null ? null : cumulativeCorrected.copy(),
        corrected == null ? null : merge(windowCorrected), sumNanos.sum(), exemplarList());
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
   * the exact share of values at or below it. A binary search: cheap enough for every span.
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

  /** The histogram's value at each of {@link #RANKS}, in one pass over its recorded buckets. */
  private static long[] valuesAtRanks(AbstractHistogram histogram) {
    long total = histogram.getTotalCount();
    long[] values = new long[RANKS.length];
    int next = 0;
    for (HistogramIterationValue value : histogram.recordedValues()) {
      long atOrBelow = value.getTotalCountToThisValue();
      long top = histogram.highestEquivalentValue(value.getValueIteratedTo());
      // The value at rank r: the first bucket holding at least r % of the values.
      while (next < RANKS.length && atOrBelow >= Math.ceil(RANKS[next] / 100 * total)) {
        values[next++] = top;
      }
    }
    while (next < RANKS.length) {
      values[next++] = histogram.highestEquivalentValue(histogram.getMaxValue());
    }
    return values;
  }

  /** Bytes the histograms of this series take now (HdrHistogram's estimate). */
  public synchronized long footprintBytes() {
    long bytes = cumulative.getEstimatedFootprintInBytes();
    for (PackedHistogram slice : window) {
      bytes += slice.getEstimatedFootprintInBytes();
    }
    return bytes;
  }

  private PackedHistogram merge(ArrayDeque<PackedHistogram> slicesOfWindow) {
    PackedHistogram merged = new PackedHistogram(significantDigits);
    for (AbstractHistogram slice : slicesOfWindow) {
      merged.add(slice);
    }
    return merged;
  }

  private List<Exemplar> exemplarList() {
    List<Exemplar> list = new ArrayList<>(exemplars.length());
    for (int i = 0; i < exemplars.length(); i++) {
      list.add(exemplars.get(i));
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
