package dev.spanprof.bench;

import dev.spanprof.analysis.distribution.Distribution;
import dev.spanprof.analysis.distribution.DistributionRegistry;
import dev.spanprof.analysis.distribution.DistributionRegistry.Kind;
import dev.spanprof.analysis.distribution.DistributionRegistry.SeriesKey;
import dev.spanprof.span.TraceId;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Recording one duration: building the series key, finding the series among many, recording.
 * And ranking one, as the enrichment's {@code spanprof.duration_percentile} does: at 10 000
 * series their rank tables are mostly out of the core's caches, as in the service.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class HistogramBenchmark {

  private static final List<String> LABELS =
      List.of("service_name", "span_name", "span_kind", "status_code");

  @Param({"100", "10000"})
  public int series;

  private DistributionRegistry registry;
  private Distribution[] all;
  private final TraceId trace = new TraceId(1, 2);

  @Setup
  public void setUp() {
    long[] bounds = {2_000_000, 10_000_000, 100_000_000, 1_000_000_000};
    registry = new DistributionRegistry(2, 6, bounds, series + 10, Duration.ofMinutes(15));
    all = new Distribution[series];
    for (int i = 0; i < series; i++) {
      all[i] = registry.series(key(i), 0, 0);
      for (int value = 0; value < 100; value++) {
        all[i].record(ThreadLocalRandom.current().nextLong(1_000, 5_000_000_000L), null, 0, 0, 0);
      }
      all[i].flush();
    }
  }

  @Benchmark
  public void lookupAndRecord() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    registry.series(key(random.nextInt(series)), 0, 0)
        .record(random.nextLong(1_000, 5_000_000_000L), trace, 7, 0, 0);
  }

  @Benchmark
  public double percentileRank() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    return all[random.nextInt(series)].percentileRank(random.nextLong(1_000, 5_000_000_000L));
  }

  private static SeriesKey key(int operation) {
    return new SeriesKey(Kind.DURATION, LABELS,
        List.of("svc" + operation % 50, "op" + operation, "SPAN_KIND_SERVER", "STATUS_CODE_UNSET"));
  }
}
