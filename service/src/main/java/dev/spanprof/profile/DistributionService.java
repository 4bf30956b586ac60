package dev.spanprof.profile;

import dev.spanprof.analysis.Distribution;
import dev.spanprof.analysis.DistributionRegistry;
import dev.spanprof.analysis.DistributionRegistry.Kind;
import dev.spanprof.analysis.DistributionRegistry.SeriesKey;
import dev.spanprof.analysis.SpanKind;
import dev.spanprof.analysis.SpanRecord;
import dev.spanprof.analysis.SpanStatus;
import dev.spanprof.analysis.StampedSlots;
import dev.spanprof.analysis.TraceProfile;
import dev.spanprof.analysis.TraceProfile.SpanProfile;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.assembly.TimeSource;
import dev.spanprof.config.HistogramConfiguration;
import dev.spanprof.config.MetricsConfiguration;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.HdrHistogram.AbstractHistogram;
import org.HdrHistogram.Histogram;

/**
 * Records every analysed span's duration, self time and critical-path time, and every trace's
 * TTX and TTC, into the {@link DistributionRegistry} (semantics.md §5), and advances the sliding
 * windows a slice at a time on a thread of its own.
 *
 * <p>Labels follow the spanmetrics connector: {@code service_name}, {@code span_name},
 * {@code span_kind} ({@code SPAN_KIND_SERVER}, …) and {@code status_code}
 * ({@code STATUS_CODE_ERROR}, …) for durations; {@code service_name}, {@code span_name} for the
 * others (the primary root's for TTX and TTC); then the configured dimensions.
 */
@Singleton
public final class DistributionService implements ProfileConsumer {

  private static final List<String> DURATION_LABELS =
      List.of("service_name", "span_name", "span_kind", "status_code");
  private static final List<String> OPERATION_LABELS = List.of("service_name", "span_name");
  private static final String[] KIND_LABELS = Arrays.stream(SpanKind.values())
      .map(kind -> "SPAN_KIND_" + kind.name()).toArray(String[]::new);
  private static final String[] STATUS_LABELS = Arrays.stream(SpanStatus.values())
      .map(status -> "STATUS_CODE_" + status.name()).toArray(String[]::new);
  private static final int KINDS = SpanKind.values().length;
  private static final int STATUSES = SpanStatus.values().length;
  /**
   * Up to this many operations, a trace's spans find their series through a table by operation,
   * kind and status (a trace repeats them: 20 spans of one trace often have a handful of keys),
   * so each key is looked up once per trace.
   */
  private static final int MAX_TRACE_TABLE_OPERATIONS = 32;
  /** Each recording thread's table for {@link #traceSeries} (4.6 KB). */
  private static final ThreadLocal<StampedSlots<SpanSeries>> TRACE_SERIES = ThreadLocal.withInitial(
      () -> new StampedSlots<>(MAX_TRACE_TABLE_OPERATIONS * KINDS * STATUSES));
  /** Each recording thread's key for looking a span's series up (see SpanSeriesKey). */
  private static final ThreadLocal<SpanSeriesKey> PROBE = ThreadLocal.withInitial(SpanSeriesKey::new);

  private final DistributionRegistry registry;
  private final TimeSource time;
  private final Clock clock;
  private final List<String> dimensions;
  private final List<String> durationLabels;
  private final List<String> operationLabels;
  private final Map<String, Long> expectedIntervalNanos = new HashMap<>();
  /** Each span key's three series: one lookup per span instead of three (see spanSeries). */
  private final ConcurrentHashMap<SpanSeriesKey, SpanSeries> spanSeries = new ConcurrentHashMap<>();
  private final int maxSeries;
  private final int significantDigits;
  private final Periodic advancer;
  /**
   * The wall clock's epoch nanoseconds minus {@link #time}'s reading, taken at start and at each
   * window advance: an exemplar's timestamp is its trace's time on {@link #time} plus this, so a
   * trace costs no wall-clock read. Both clocks are slewed alike; a step of the wall clock shows
   * from the next advance.
   */
  private volatile long epochOffsetNanos;

  DistributionService(HistogramConfiguration histograms, MetricsConfiguration metrics,
      TimeSource time, Clock clock) {
    this.significantDigits = histograms.getSignificantDigits();
    this.maxSeries = metrics.getMaxSeries();
    try {
      this.registry = new DistributionRegistry(significantDigits,
          HistogramConfiguration.WINDOW_SLICES, bucketNanos(histograms), metrics.getMaxSeries(),
          metrics.getSeriesExpiry());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "invalid " + HistogramConfiguration.PREFIX + " configuration: " + e.getMessage(), e);
    }
    this.time = time;
    this.clock = clock;
    this.dimensions = List.copyOf(metrics.getDimensions());
    List<String> dimensionLabels = dimensions.stream().map(key -> key.replace('.', '_')).toList();
    this.durationLabels = concat(DURATION_LABELS, dimensionLabels);
    this.operationLabels = concat(OPERATION_LABELS, dimensionLabels);
    histograms.getExpectedInterval().forEach((operation, interval) ->
        expectedIntervalNanos.put(operation, interval.toNanos()));
    syncEpochOffset();
    this.advancer = Periodic.start("spanprof-distributions",
        histograms.getWindow().dividedBy(HistogramConfiguration.WINDOW_SLICES), () -> {
          registry.advance(time.nanoTime());
          syncEpochOffset();
        });
  }

  private void syncEpochOffset() {
    Instant wall = clock.instant();
    // Wraps when the monotonic reading is far from 0; adding a reading wraps back.
    epochOffsetNanos = wall.getEpochSecond() * 1_000_000_000L + wall.getNano() - time.nanoTime();
  }

  private static long[] bucketNanos(HistogramConfiguration histograms) {
    return histograms.getBuckets().stream().mapToLong(Duration::toNanos).sorted().distinct().toArray();
  }

  @Override
  public void accept(CompletedTrace trace, TraceProfile profile, long nowNanos) {
    long epochMillis = (nowNanos + epochOffsetNanos) / 1_000_000;
    List<SpanRecord> spans = trace.spans();
    StampedSlots<SpanSeries> traceSeries = traceSeries(profile.distinctOperations().size());
    SpanSeries rootSeries = null;
    for (int i = 0; i < spans.size(); i++) {
      SpanRecord span = spans.get(i);
      SpanProfile result = profile.spans().get(i);
      SpanSeries series;
      if (traceSeries == null) {
        series = spanSeries(span, nowNanos);
      } else {
        int slot = (result.operation() * KINDS + span.kind().ordinal()) * STATUSES
            + span.status().ordinal();
        series = traceSeries.get(slot);
        if (series == null) {
          series = spanSeries(span, nowNanos);
          if (series.remembered()) {
            traceSeries.set(slot, series);
          }
        }
      }
      Distribution.recordEach(series.duration(), span.durationNanos(), series.selfTime(),
          result.selfTimeNs(), series.criticalPath(), result.criticalPathNs(), trace.traceId(),
          span.spanId(), nowNanos, epochMillis);
      if (i == profile.primaryRoot()) {
        rootSeries = series;
      }
    }
    if (rootSeries != null) {
      SpanRecord root = spans.get(profile.primaryRoot());
      RootSeries series = rootSeries(rootSeries, root, nowNanos);
      series.ttx().record(profile.ttxNs(), trace.traceId(), root.spanId(), nowNanos, epochMillis);
      series.ttc().record(profile.ttcNs(), trace.traceId(), root.spanId(), nowNanos, epochMillis);
    }
  }

  /**
   * The TTX and TTC series of a trace whose primary root has {@code spanSeries}, remembered
   * there when they are their key's own: a trace then reaches them through its root's series,
   * already in hand, rather than building two keys and looking each up in the registry
   * ({@code PipelineBenchmark}).
   */
  private RootSeries rootSeries(SpanSeries spanSeries, SpanRecord root, long now) {
    RootSeries known = spanSeries.rootSeries;
    if (known != null && !known.ttx().retired() && !known.ttc().retired()) {
      return known;
    }
    SeriesKey ttxKey = operationKey(Kind.TRACE_TTX, root, List.of());
    SeriesKey ttcKey = operationKey(Kind.TRACE_TTC, root, List.of());
    RootSeries found = new RootSeries(registry.series(ttxKey, 0, now),
        registry.series(ttcKey, 0, now));
    // As for the span's own series: an overflow series is looked up every time, to be counted.
    if (spanSeries.remembered() && registry.get(ttxKey) == found.ttx()
        && registry.get(ttcKey) == found.ttc()) {
      spanSeries.rootSeries = found;
    }
    return found;
  }

  /** The trace series of one root operation. */
  private record RootSeries(Distribution ttx, Distribution ttc) {}

  /** The registry, for export. */
  public DistributionRegistry registry() {
    return registry;
  }

  /**
   * The percentage (0–100) of the span's operation's recorded durations (its own label set)
   * that are at or below {@code durationNanos}: {@code spanprof.duration_percentile}. Ranked
   * against the cumulative view as last flushed (at most one window slice old), so asking
   * costs a lookup, not a flush.
   */
  public double durationPercentile(SpanRecord span, long durationNanos) {
    SpanSeriesKey key = spanSeriesKey(span);
    SpanSeries known = knownSeries(key);
    Distribution series = known != null ? known.duration()
        : registry.get(durationKey(span, key.dimensionValues()));
    return series == null ? 0 : series.percentileRank(durationNanos);
  }

  /**
   * What a span's series are keyed by. Looked up twice per span (recording, then the enricher's
   * percentile), so a lookup fills its thread's probe rather than allocating a key; only a key
   * that is remembered is copied. The span's strings are interned at ingest and cache their
   * hashes, so hashing and comparing one is cheap next to the three series keys it stands for.
   */
  private static final class SpanSeriesKey {
    private String service;
    private String name;
    private SpanKind kind;
    private SpanStatus status;
    private List<String> dimensionValues;
    private int hash;

    SpanSeriesKey fill(SpanRecord span, List<String> dimensionValues) {
      this.service = span.serviceName();
      this.name = span.name();
      this.kind = span.kind();
      this.status = span.status();
      this.dimensionValues = dimensionValues;
      this.hash = ((31 * service.hashCode() + name.hashCode()) * 31 + kind.ordinal()) * 31
          + status.ordinal() + 31 * dimensionValues.hashCode();
      return this;
    }

    SpanSeriesKey copy() {
      SpanSeriesKey copy = new SpanSeriesKey();
      copy.service = service;
      copy.name = name;
      copy.kind = kind;
      copy.status = status;
      copy.dimensionValues = dimensionValues;
      copy.hash = hash;
      return copy;
    }

    List<String> dimensionValues() {
      return dimensionValues;
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof SpanSeriesKey that
          && hash == that.hash
          && kind == that.kind
          && status == that.status
          && service.equals(that.service)
          && name.equals(that.name)
          && dimensionValues.equals(that.dimensionValues);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }

  /**
   * The thread's table of the current trace's span series by operation, kind and status, cleared;
   * null when spans of one of those may still differ in their series (configured dimensions) or
   * the trace has too many operations for the table.
   */
  private StampedSlots<SpanSeries> traceSeries(int operations) {
    if (!dimensions.isEmpty() || operations > MAX_TRACE_TABLE_OPERATIONS) {
      return null;
    }
    StampedSlots<SpanSeries> table = TRACE_SERIES.get();
    table.clear();
    return table;
  }

  /** The three series a span records into. */
  private static final class SpanSeries {
    private final Distribution duration;
    private final Distribution selfTime;
    private final Distribution criticalPath;
    /**
     * Whether they are its key's own, kept in {@link #spanSeries}; not when one is an overflow
     * series, whose every sample must go through the registry to be counted.
     */
    private final boolean remembered;
    /**
     * The trace series of traces whose primary root has this span's key, once one has been
     * recorded (see {@link #rootSeries}). Written without a lock: threads that race both find
     * the registry's same series, and a record's final fields publish it whole.
     */
    private RootSeries rootSeries;

    SpanSeries(Distribution duration, Distribution selfTime, Distribution criticalPath,
        boolean remembered) {
      this.duration = duration;
      this.selfTime = selfTime;
      this.criticalPath = criticalPath;
      this.remembered = remembered;
    }

    Distribution duration() {
      return duration;
    }

    Distribution selfTime() {
      return selfTime;
    }

    Distribution criticalPath() {
      return criticalPath;
    }

    boolean remembered() {
      return remembered;
    }

    boolean live() {
      return !duration.retired() && !selfTime.retired() && !criticalPath.retired();
    }
  }

  /** The thread's probe, filled for {@code span}: valid until the thread's next lookup. */
  private SpanSeriesKey spanSeriesKey(SpanRecord span) {
    return PROBE.get().fill(span, dimensionValues(span));
  }

  /** The series remembered for {@code key}, or null when none are or they were retired. */
  private SpanSeries knownSeries(SpanSeriesKey key) {
    SpanSeries known = spanSeries.get(key);
    return known != null && known.live() ? known : null;
  }

  /**
   * The span's series, from {@link #spanSeries} when known there, else from the registry. Only
   * series of their own are remembered: a key served by an overflow series goes to the registry
   * every time, so that each of its samples is counted as overflowed and it gets a series of its
   * own once there is room. The map is bounded like the registry, and emptied when full.
   */
  private SpanSeries spanSeries(SpanRecord span, long now) {
    SpanSeriesKey key = spanSeriesKey(span);
    SpanSeries known = knownSeries(key);
    if (known != null) {
      return known;
    }
    SeriesKey durationKey = durationKey(span, key.dimensionValues());
    SeriesKey selfTimeKey = operationKey(Kind.SELF_TIME, span, key.dimensionValues());
    SeriesKey criticalPathKey = operationKey(Kind.CRITICAL_PATH, span, key.dimensionValues());
    // Every span series of an operation takes its self-time series' lock, so that a span
    // records into its three under one lock (Distribution.recordEach). The self-time and
    // critical-path series are the operation's, its duration series one per kind and status.
    Distribution selfTime = registry.series(selfTimeKey, 0, now);
    Distribution criticalPath = registry.series(criticalPathKey, 0, now, selfTime);
    Distribution duration = registry.series(durationKey, expectedIntervalNanos(span), now,
        selfTime);
    boolean own = registry.get(durationKey) == duration && registry.get(selfTimeKey) == selfTime
        && registry.get(criticalPathKey) == criticalPath;
    SpanSeries series = new SpanSeries(duration, selfTime, criticalPath, own);
    if (own) {
      if (spanSeries.size() >= maxSeries) {
        spanSeries.clear();
      }
      spanSeries.put(key.copy(), series);
    }
    return series;
  }

  /**
   * Every series of one operation and kind merged (durations of all span kinds and status
   * codes together); empty when the operation has none.
   */
  public Optional<Merged> merged(Kind kind, String service, String operation) {
    Histogram cumulative = null;
    Histogram window = null;
    Histogram cumulativeCorrected = null;
    Histogram windowCorrected = null;
    Distribution.Reader reader = registry.reader();
    for (Map.Entry<SeriesKey, Distribution> entry : registry.all().entrySet()) {
      SeriesKey key = entry.getKey();
      if (key.kind() != kind || !service.equals(key.label("service_name"))
          || !operation.equals(key.label("span_name"))) {
        continue;
      }
      Distribution.Snapshot snapshot = entry.getValue().read(reader);
      if (cumulative == null) {
        cumulative = new Histogram(significantDigits);
        window = new Histogram(significantDigits);
      }
      cumulative.add(snapshot.cumulative());
      window.add(snapshot.window());
      if (snapshot.cumulativeCorrected() != null) {
        if (cumulativeCorrected == null) {
          cumulativeCorrected = new Histogram(significantDigits);
          windowCorrected = new Histogram(significantDigits);
        }
        cumulativeCorrected.add(snapshot.cumulativeCorrected());
        windowCorrected.add(snapshot.windowCorrected());
      }
    }
    return cumulative == null ? Optional.empty()
        : Optional.of(new Merged(cumulative, window, cumulativeCorrected, windowCorrected));
  }

  /** One operation's merged views; the corrected ones are null when no series corrects. */
  public record Merged(
      AbstractHistogram cumulative,
      AbstractHistogram window,
      AbstractHistogram cumulativeCorrected,
      AbstractHistogram windowCorrected) {}

  private long expectedIntervalNanos(SpanRecord span) {
    // Usually none is configured: then no key is built for the lookup.
    return expectedIntervalNanos.isEmpty() ? 0
        : expectedIntervalNanos.getOrDefault(span.serviceName() + '/' + span.name(), 0L);
  }

  // Keys are built per span, so their parts are constants or the span's own strings (whose hashes
  // are cached) wherever possible, and their lists are immutable (SeriesKey keeps them as they are).

  private SeriesKey durationKey(SpanRecord span, List<String> dimensionValues) {
    String kind = KIND_LABELS[span.kind().ordinal()];
    String status = STATUS_LABELS[span.status().ordinal()];
    return new SeriesKey(Kind.DURATION, durationLabels,
        concat(List.of(span.serviceName(), span.name(), kind, status), dimensionValues));
  }

  private SeriesKey operationKey(Kind kind, SpanRecord span, List<String> dimensionValues) {
    // TTX and TTC are keyed by the root's operation alone, without the dimensions.
    return new SeriesKey(kind, dimensionValues.isEmpty() ? OPERATION_LABELS : operationLabels,
        concat(List.of(span.serviceName(), span.name()), dimensionValues));
  }

  /** Both lists in one immutable list; {@code first} itself when there is nothing to add. */
  private static List<String> concat(List<String> first, List<String> second) {
    if (second.isEmpty()) {
      return first;
    }
    List<String> all = new ArrayList<>(first.size() + second.size());
    all.addAll(first);
    all.addAll(second);
    return List.copyOf(all);
  }

  private List<String> dimensionValues(SpanRecord span) {
    if (dimensions.isEmpty()) {
      return List.of();
    }
    List<String> values = new ArrayList<>(dimensions.size());
    for (String key : dimensions) {
      Object value = span.attribute(key);
      values.add(value == null ? "" : String.valueOf(value));
    }
    return values;
  }

  /** The Prometheus metric a kind is exported as. */
  public static String metricName(Kind kind) {
    return "spanprof_" + kind.name().toLowerCase(Locale.ROOT) + "_seconds";
  }

  @PreDestroy
  void stop() {
    advancer.stop();
  }
}
