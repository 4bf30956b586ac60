package dev.spanprof.metrics;

import dev.spanprof.analysis.distribution.Distribution;
import dev.spanprof.analysis.distribution.DistributionRegistry;
import dev.spanprof.analysis.distribution.DistributionRegistry.Kind;
import dev.spanprof.analysis.distribution.DistributionRegistry.SeriesKey;
import dev.spanprof.config.HistogramConfiguration;
import dev.spanprof.span.Ids;
import dev.spanprof.stages.DistributionService;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Exemplar;
import io.prometheus.metrics.model.snapshots.Exemplars;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Quantile;
import io.prometheus.metrics.model.snapshots.Quantiles;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import io.prometheus.metrics.model.snapshots.SummarySnapshot.SummaryDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Unit;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.AbstractHistogram;

/**
 * The distributions as Prometheus metrics, built at each scrape from the HdrHistogram series.
 *
 * <ul>
 *   <li>Classic histograms {@code spanprof_duration_seconds}, {@code spanprof_self_time_seconds},
 *       {@code spanprof_critical_path_seconds}, {@code spanprof_trace_ttx_seconds} and
 *       {@code spanprof_trace_ttc_seconds}, cumulative since start. Each bucket's count is
 *       HdrHistogram's count of values at or below the bound — exact within the configured
 *       precision, with no interpolation. Durations carry {@code correction="raw"}, and
 *       {@code "corrected"} too for operations with an expected interval. Each bucket carries
 *       the trace and span id of its latest sample as an exemplar (OpenMetrics only).
 *   <li>{@code spanprof_duration_quantile_seconds}: a summary per duration series, its
 *       {@code quantile}s the configured quantiles of the sliding window and {@code 1} (the
 *       window's maximum), its {@code _sum} and {@code _count} cumulative since start.
 *   <li>{@code spanprof_series_overflow_total{metric}}: samples folded into the overflow series.
 * </ul>
 */
@Singleton
public final class DistributionExport {

  /** Families that share a name with a contract counter once OpenMetrics drops "_total". */
  public static final List<String> OPEN_METRICS_CONFLICTS =
      List.of("spanprof_self_time_seconds", "spanprof_critical_path_seconds");

  private static final Map<Kind, String> HELP = new EnumMap<>(Map.of(
      Kind.DURATION, "Span durations",
      Kind.SELF_TIME, "Span self times",
      Kind.CRITICAL_PATH, "Span critical-path times",
      Kind.TRACE_TTX, "Trace time to execution (union of span intervals)",
      Kind.TRACE_TTC, "Trace time to completion (last end minus first start)"));

  private final DistributionService distributions;
  private final double[] boundsSeconds;
  private final long[] boundsNanos;
  private final List<Double> quantiles;

  DistributionExport(DistributionService distributions, HistogramConfiguration configuration) {
    this.distributions = distributions;
    this.boundsNanos = distributions.registry().boundariesNanos();
    this.boundsSeconds = new double[boundsNanos.length + 1];
    for (int i = 0; i < boundsNanos.length; i++) {
      boundsSeconds[i] = boundsNanos[i] / 1e9;
    }
    boundsSeconds[boundsNanos.length] = Double.POSITIVE_INFINITY;
    this.quantiles = List.copyOf(configuration.getQuantiles());
  }

  /** Every distribution metric family, as of now. */
  public MetricSnapshots collect() {
    DistributionRegistry registry = distributions.registry();
    Map<Kind, List<HistogramDataPointSnapshot>> points = new EnumMap<>(Kind.class);
    for (Kind kind : Kind.values()) {
      points.put(kind, new ArrayList<>());
    }
    List<SummaryDataPointSnapshot> quantilePoints = new ArrayList<>();
    // One reader for the scrape: each series' views are read, turned into points, then
    // overwritten by the next series'.
    Distribution.Reader reader = registry.reader();
    for (Map.Entry<SeriesKey, Distribution> entry : registry.all().entrySet()) {
      SeriesKey key = entry.getKey();
      Distribution.Snapshot snapshot = entry.getValue().read(reader);
      Labels labels = Labels.of(key.labelNames(), key.labelValues());
      List<HistogramDataPointSnapshot> kindPoints = points.get(key.kind());
      if (key.kind() == Kind.DURATION) {
        Labels raw = labels.add("correction", "raw");
        kindPoints.add(point(snapshot.cumulative(), snapshot.sumNanos(), raw, snapshot.exemplars()));
        quantilePoints.add(summary(snapshot.window(), snapshot.cumulative(), snapshot.sumNanos(),
            raw));
        if (snapshot.cumulativeCorrected() != null) {
          Labels corrected = labels.add("correction", "corrected");
          AbstractHistogram histogram = snapshot.cumulativeCorrected();
          double sumNanos = histogram.getMean() * histogram.getTotalCount();
          kindPoints.add(point(histogram, sumNanos, corrected, List.of()));
          quantilePoints.add(summary(snapshot.windowCorrected(), histogram, sumNanos, corrected));
        }
      } else {
        kindPoints.add(point(snapshot.cumulative(), snapshot.sumNanos(), labels, snapshot.exemplars()));
      }
    }
    List<MetricSnapshot> families = new ArrayList<>();
    for (Kind kind : Kind.values()) {
      families.add(new HistogramSnapshot(
          new MetricMetadata(DistributionService.metricName(kind), HELP.get(kind), Unit.SECONDS),
          points.get(kind)));
    }
    families.add(new SummarySnapshot(new MetricMetadata("spanprof_duration_quantile_seconds",
        "Span duration quantiles over the sliding window (1: its maximum); sum and count since "
            + "start", Unit.SECONDS), quantilePoints));
    List<CounterDataPointSnapshot> overflow = new ArrayList<>();
    for (Kind kind : Kind.values()) {
      overflow.add(new CounterDataPointSnapshot(registry.overflowSamples(kind),
          Labels.of("metric", DistributionService.metricName(kind)), null, 0));
    }
    families.add(new CounterSnapshot(new MetricMetadata("spanprof_series_overflow",
        "Samples folded into the overflow series (spanprof.metrics.max-series)"), overflow));
    return new MetricSnapshots(families);
  }

  private HistogramDataPointSnapshot point(AbstractHistogram histogram, double sumNanos,
      Labels labels, List<Distribution.Exemplar> exemplars) {
    long[] counts = bucketCounts(histogram, boundsNanos);
    List<Exemplar> samples = new ArrayList<>();
    for (Distribution.Exemplar exemplar : exemplars) {
      if (exemplar != null) {
        samples.add(Exemplar.builder()
            .value(exemplar.valueNanos() / 1e9)
            .traceId(exemplar.traceId().toHex())
            .spanId(Ids.toHex(exemplar.spanId()))
            .timestampMillis(exemplar.epochMillis())
            .build());
      }
    }
    return new HistogramDataPointSnapshot(ClassicHistogramBuckets.of(boundsSeconds, counts),
        sumNanos / 1e9, labels, Exemplars.of(samples), 0);
  }

  /**
   * Each export bucket's count, the last for +Inf: the values HdrHistogram counts at or below the
   * bound ({@link AbstractHistogram#getCountBetweenValues} from 0) and not at or below the one
   * before, so adjacent buckets never count a value twice. Each bucket's range of HdrHistogram
   * buckets is counted once, in one pass, not a count from 0 per bound: a scrape takes this for
   * every series.
   */
  static long[] bucketCounts(AbstractHistogram histogram, long[] boundsNanos) {
    long[] counts = new long[boundsNanos.length + 1];
    if (histogram.getTotalCount() == 0) {
      return counts;
    }
    long counted = 0;
    for (int i = 0; i < boundsNanos.length; i++) {
      // From the HdrHistogram bucket after the previous bound's: none when both bounds share one.
      long fromNanos = i == 0 ? 0 : histogram.nextNonEquivalentValue(boundsNanos[i - 1]);
      counts[i] = histogram.getCountBetweenValues(fromNanos, boundsNanos[i]);
      counted += counts[i];
    }
    counts[boundsNanos.length] = histogram.getTotalCount() - counted;
    return counts;
  }

  /**
   * The window's configured quantiles and its maximum (quantile 1), none when the window is
   * empty, with the cumulative count and sum.
   */
  private SummaryDataPointSnapshot summary(AbstractHistogram window,
      AbstractHistogram cumulative, double sumNanos, Labels labels) {
    List<Quantile> values = new ArrayList<>();
    if (window.getTotalCount() > 0) {
      for (double quantile : quantiles) {
        values.add(new Quantile(quantile, window.getValueAtPercentile(quantile * 100) / 1e9));
      }
      values.add(new Quantile(1, window.getMaxValue() / 1e9));
    }
    return new SummaryDataPointSnapshot(cumulative.getTotalCount(), sumNanos / 1e9,
        Quantiles.of(values), labels, Exemplars.EMPTY, 0);
  }
}
