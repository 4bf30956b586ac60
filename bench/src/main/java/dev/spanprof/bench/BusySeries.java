package dev.spanprof.bench;

import dev.spanprof.analysis.distribution.Distribution;
import dev.spanprof.analysis.distribution.DistributionRegistry;
import dev.spanprof.analysis.distribution.DistributionRegistry.Kind;
import dev.spanprof.analysis.distribution.DistributionRegistry.SeriesKey;
import dev.spanprof.span.TraceId;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Busy duration series, as {@link SeriesFootprint} and {@link ScrapeBenchmark} fill a registry
 * with them a window slice at a time: durations spread log-uniformly over six decades (10 µs to
 * 10 s), as span durations spread, with exemplars, from one seeded sequence.
 */
final class BusySeries {

  private static final List<String> LABELS =
      List.of("service_name", "span_name", "span_kind", "status_code");

  private final SplittableRandom random = new SplittableRandom(1);
  private final TraceId trace = new TraceId(1, 2);

  /**
   * Records {@code values} durations into each of series 0 to {@code series} − 1, as of traces
   * that arrived in slice {@code slice}.
   */
  void fillSlice(DistributionRegistry registry, int series, int values, int slice, long nowNanos) {
    for (int i = 0; i < series; i++) {
      Distribution distribution = registry.series(key(i), 0, nowNanos);
      for (int v = 0; v < values; v++) {
        long nanos = (long) Math.pow(10, 4 + 6 * random.nextDouble());
        distribution.record(nanos, trace, v, nowNanos, slice * 10_000L, slice);
      }
    }
  }

  private static SeriesKey key(int operation) {
    return new SeriesKey(Kind.DURATION, LABELS,
        List.of("svc" + operation % 50, "op" + operation, "SPAN_KIND_SERVER", "STATUS_CODE_UNSET"));
  }
}
