package dev.spanprof.bench;

import dev.spanprof.analysis.distribution.Distribution;
import dev.spanprof.analysis.distribution.DistributionRegistry;
import dev.spanprof.analysis.distribution.DistributionRegistry.Kind;
import dev.spanprof.analysis.distribution.DistributionRegistry.SeriesKey;
import dev.spanprof.span.TraceId;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Recording one duration into a series whose current window slice is young, as most series'
 * slices are at the rates users run: at 10 000 spans/s a span's three series see a few hundred
 * values per 10 s slice, fewer than the 2 048 after which a slice counts densely. Each shot
 * records {@link #RECORDS} durations into series made fresh for it, 200 durations each already:
 * at 1 000 series each ends the shot with about 1 200. A shot's milliseconds are nanoseconds per
 * record. At 10 000 series their counts are mostly out of the core's caches, as in the service.
 * Durations are log-normal around each series' own median, spread as an operation's are.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 10, batchSize = YoungSliceBenchmark.RECORDS)
@Measurement(iterations = 20, batchSize = YoungSliceBenchmark.RECORDS)
public class YoungSliceBenchmark {

  static final int RECORDS = 1_000_000;
  private static final int HELD = 200;
  private static final List<String> LABELS = List.of("service_name", "span_name");

  @Param({"1000", "10000"})
  public int series;

  private final TraceId trace = new TraceId(1, 2);
  private Distribution[] all;
  private int[] seriesOfRecord;
  private long[] durationOfRecord;
  private int next;

  @Setup(Level.Iteration)
  public void setUp() {
    SplittableRandom random = new SplittableRandom();
    DistributionRegistry registry = new DistributionRegistry(2, 6, new long[] {10_000_000},
        series + 10, Duration.ofMinutes(15));
    all = new Distribution[series];
    long[] medianNanos = new long[series];
    for (int i = 0; i < series; i++) {
      all[i] = registry.series(
          new SeriesKey(Kind.DURATION, LABELS, List.of("svc" + i % 50, "op" + i)), 0, 0);
      // Medians from 100 µs to 1 s.
      medianNanos[i] = (long) (100_000 * Math.pow(10, 4 * random.nextDouble()));
      for (int value = 0; value < HELD; value++) {
        all[i].record(duration(random, medianNanos[i]), trace, 7, 0, 0);
      }
    }
    seriesOfRecord = new int[RECORDS];
    durationOfRecord = new long[RECORDS];
    for (int r = 0; r < RECORDS; r++) {
      seriesOfRecord[r] = random.nextInt(series);
      durationOfRecord[r] = duration(random, medianNanos[seriesOfRecord[r]]);
    }
    next = 0;
  }

  /** Log-normal around the median: nine in ten within a factor of 3 of it. */
  private static long duration(SplittableRandom random, long medianNanos) {
    double gaussian = Math.sqrt(-2 * Math.log(1 - random.nextDouble()))
        * Math.cos(2 * Math.PI * random.nextDouble());
    return Math.max(1, (long) (medianNanos * Math.exp(0.67 * gaussian)));
  }

  @Benchmark
  public void record() {
    int r = next++;
    all[seriesOfRecord[r]].record(durationOfRecord[r], trace, 7, 0, 0);
  }
}
