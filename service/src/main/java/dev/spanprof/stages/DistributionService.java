package dev.spanprof.stages;

import dev.spanprof.analysis.distribution.Distribution;
import dev.spanprof.analysis.distribution.DistributionRegistry;
import dev.spanprof.analysis.distribution.DistributionRegistry.Kind;
import dev.spanprof.analysis.distribution.DistributionRegistry.SeriesKey;
import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.analysis.trace.TraceProfile.SpanProfile;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.config.AssemblyConfiguration;
import dev.spanprof.config.HistogramConfiguration;
import dev.spanprof.config.MetricsConfiguration;
import dev.spanprof.span.Operation;
import dev.spanprof.span.SpanKind;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.SpanStatus;
import dev.spanprof.time.TimeSource;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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
  private final DistributionRegistry registry;
  private final TimeSource time;
  private final List<String> dimensions;
  private final List<String> durationLabels;
  private final List<String> operationLabels;
  private final Map<String, Long> expectedIntervalNanos = new HashMap<>();
  /**
   * Without configured dimensions, each span key's three series by service, then span name, then
   * kind and status: a span finds them in two lookups of its interned strings, with no key built,
   * where the registry takes three keys built and looked up (40 bytes more per span,
   * {@code PipelineBenchmark -prof gc}). Holds live series of their own only: retired ones go at
   * each window advance, and a key served by an overflow series is not kept, so that each of its
   * samples goes through the registry to be counted. Slots are written without a lock: threads
   * that race find the registry's same series, and a record's final fields publish it whole.
   */
  private final ConcurrentHashMap<String, ConcurrentHashMap<String, SpanSeries[]>> knownSeries =
      new ConcurrentHashMap<>();
  private final int significantDigits;
  private final long sliceNanos;
  private final long graceNanos;
  private final Periodic advancer;

  DistributionService(HistogramConfiguration histograms, MetricsConfiguration metrics,
      AssemblyConfiguration assembly, TimeSource time) {
    this.significantDigits = histograms.getSignificantDigits();
    try {
      this.registry = new DistributionRegistry(significantDigits,
          HistogramConfiguration.WINDOW_SLICES, bucketNanos(histograms), metrics.getMaxSeries(),
          metrics.getSeriesExpiry());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "invalid " + HistogramConfiguration.PREFIX + " configuration: " + e.getMessage(), e);
    }
    this.time = time;
    this.dimensions = List.copyOf(metrics.getDimensions());
    List<String> dimensionLabels = dimensions.stream().map(key -> key.replace('.', '_')).toList();
    this.durationLabels = concat(DURATION_LABELS, dimensionLabels);
    this.operationLabels = concat(OPERATION_LABELS, dimensionLabels);
    histograms.getExpectedInterval().forEach((operation, interval) ->
        expectedIntervalNanos.put(operation, interval.toNanos()));
    // Slices are multiples of their length in epoch time, as on every replica, and a trace counts
    // in the slice of its arrival (§7). It is analysed a trace timeout later: a slice stays open
    // that long past its end, and completes then.
    this.sliceNanos = histograms.getWindow().dividedBy(HistogramConfiguration.WINDOW_SLICES)
        .toNanos();
    this.graceNanos = graceNanos(assembly, sliceNanos);
    registry.startAt(currentSlice(time.epochNanos()));
    this.advancer = Periodic.startAligned("spanprof-distributions", Duration.ofNanos(sliceNanos),
        Duration.ofNanos(graceNanos), time, this::advance);
  }

  /**
   * Completes the slice that ended the grace ago and opens the next, in every series: what the
   * advancer runs at each slice's end plus the grace.
   */
  void advance() {
    long now = time.epochNanos();
    registry.advance(now, currentSlice(now));
    forgetRetiredSeries();
  }

  /**
   * How long past its end a slice stays open: a trace timeout, a sweep and a second for the
   * analysis queue; at most nine tenths of a slice, as two slices are open at once (a trace
   * analysed later than that counts in the slice after its arrival's).
   */
  static long graceNanos(AssemblyConfiguration assembly, long sliceNanos) {
    long wanted = assembly.getTraceTimeout().plus(assembly.getSweepInterval())
        .plusSeconds(1).toNanos();
    return Math.min(wanted, sliceNanos - sliceNanos / 10);
  }

  /** The slice of arrivals the current open slice holds at {@code epochNanos}. */
  private long currentSlice(long epochNanos) {
    return Math.floorDiv(epochNanos - graceNanos, sliceNanos) + 1;
  }

  private static long[] bucketNanos(HistogramConfiguration histograms) {
    return histograms.getBuckets().stream().mapToLong(Duration::toNanos).sorted().distinct().toArray();
  }

  @Override
  public void accept(CompletedTrace trace, TraceProfile profile, long arrivalNanos) {
    long epochMillis = Math.floorDiv(arrivalNanos, 1_000_000);
    long arrivalSlice = Math.floorDiv(arrivalNanos, sliceNanos);
    List<SpanRecord> spans = trace.spans();
    for (int i = 0; i < spans.size(); i++) {
      SpanRecord span = spans.get(i);
      SpanProfile result = profile.spans().get(i);
      SpanSeries series = spanSeries(span, arrivalNanos);
      Distribution.recordEach(series.duration(), span.durationNanos(), series.selfTime(),
          result.selfTimeNs(), series.criticalPath(), result.criticalPathNs(), trace.traceId(),
          span.spanId(), arrivalNanos, epochMillis, arrivalSlice);
    }
    // Per span above; per trace only for whole traces, as a late fragment is none (§2).
    if (profile.primaryRoot() >= 0 && !trace.fragment()) {
      SpanRecord root = spans.get(profile.primaryRoot());
      registry.series(operationKey(Kind.TRACE_TTX, root, List.of()), 0, arrivalNanos)
          .record(profile.ttxNs(), trace.traceId(), root.spanId(), arrivalNanos, epochMillis,
              arrivalSlice);
      registry.series(operationKey(Kind.TRACE_TTC, root, List.of()), 0, arrivalNanos)
          .record(profile.ttcNs(), trace.traceId(), root.spanId(), arrivalNanos, epochMillis,
              arrivalSlice);
    }
  }

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
    SpanSeries known = knownSeries(span);
    Distribution series = known != null ? known.duration()
        : registry.get(durationKey(span, dimensionValues(span)));
    return series == null ? 0 : series.percentileRank(durationNanos);
  }

  /** The three series a span records into. */
  private record SpanSeries(Distribution duration, Distribution selfTime,
      Distribution criticalPath) {

    boolean live() {
      return !duration.retired() && !selfTime.retired() && !criticalPath.retired();
    }
  }

  /** The place of a span's series among its operation's. */
  private static int slot(SpanRecord span) {
    return span.kind().ordinal() * STATUS_LABELS.length + span.status().ordinal();
  }

  /** The series known for the span's key, or null when none are or they were retired. */
  private SpanSeries knownSeries(SpanRecord span) {
    if (!dimensions.isEmpty()) {
      return null;
    }
    Map<String, SpanSeries[]> byName = knownSeries.get(span.serviceName());
    SpanSeries[] byKindAndStatus = byName == null ? null : byName.get(span.name());
    SpanSeries known = byKindAndStatus == null ? null : byKindAndStatus[slot(span)];
    return known != null && known.live() ? known : null;
  }

  private void remember(SpanRecord span, SpanSeries series) {
    knownSeries.computeIfAbsent(span.serviceName(), service -> new ConcurrentHashMap<>())
        .computeIfAbsent(span.name(), name -> new SpanSeries[KIND_LABELS.length
            * STATUS_LABELS.length])[slot(span)] = series;
  }

  /** Drops the known series that were retired, and the operations left with none. */
  private void forgetRetiredSeries() {
    knownSeries.values().removeIf(byName -> {
      byName.values().removeIf(byKindAndStatus -> {
        boolean anyLive = false;
        for (int i = 0; i < byKindAndStatus.length; i++) {
          if (byKindAndStatus[i] != null && !byKindAndStatus[i].live()) {
            byKindAndStatus[i] = null;
          }
          anyLive |= byKindAndStatus[i] != null;
        }
        return !anyLive;
      });
      return byName.isEmpty();
    });
  }

  /** The span's series: known, or else looked up in the registry and remembered. */
  private SpanSeries spanSeries(SpanRecord span, long now) {
    SpanSeries known = knownSeries(span);
    if (known != null) {
      return known;
    }
    List<String> dimensionValues = dimensionValues(span);
    // Every span series of an operation takes its self-time series' lock, so that a span
    // records into its three under one lock (Distribution.recordEach). The self-time and
    // critical-path series are the operation's, its duration series one per kind and status.
    Distribution selfTime =
        registry.series(operationKey(Kind.SELF_TIME, span, dimensionValues), 0, now);
    Distribution criticalPath = registry.series(
        operationKey(Kind.CRITICAL_PATH, span, dimensionValues), 0, now, selfTime);
    Distribution duration = registry.series(durationKey(span, dimensionValues),
        expectedIntervalNanos(span), now, selfTime);
    SpanSeries series = new SpanSeries(duration, selfTime, criticalPath);
    if (dimensions.isEmpty() && !registry.isOverflow(Kind.DURATION, duration)
        && !registry.isOverflow(Kind.SELF_TIME, selfTime)
        && !registry.isOverflow(Kind.CRITICAL_PATH, criticalPath)) {
      remember(span, series);
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

  /** Every operation with a series of {@code kind}, each once. */
  public List<Operation> operations(Kind kind) {
    Set<Operation> operations = new LinkedHashSet<>();
    for (SeriesKey key : registry.all().keySet()) {
      String service = key.label("service_name");
      String name = key.label("span_name");
      if (key.kind() == kind && service != null && name != null) {
        operations.add(new Operation(service, name));
      }
    }
    return List.copyOf(operations);
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
