package dev.spanprof.bench;

import dev.spanprof.analysis.distribution.Distribution;
import java.util.Random;
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
 * What a scrape of {@code /metrics} pays per series: both views of one series read, its window
 * full of completed slices and its current slice half recorded, through the reader the scrape
 * reuses for every series. The service reads every series at each scrape.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class SeriesSnapshotBenchmark {

  private static final int SLICES = 6;

  /** Values per slice, as in {@link WindowAdvanceBenchmark}: packed, and past the dense threshold. */
  @Param({"500", "50000"})
  public int valuesPerSlice;

  private Distribution distribution;
  private Distribution.Reader reader;

  @Setup
  public void setUp() {
    long[] bucketsNanos = {2_000_000, 10_000_000, 100_000_000, 1_000_000_000};
    distribution = new Distribution(2, SLICES, bucketsNanos, 0, 0);
    reader = new Distribution.Reader(2);
    // Durations spread as request latencies are: log-normal around 5 ms, most within two decades.
    Random random = new Random(42);
    for (int slice = 0; slice < SLICES; slice++) {
      for (int i = 0; i < valuesPerSlice; i++) {
        distribution.record(
            (long) Math.exp(Math.log(5_000_000) + 1.2 * random.nextGaussian()), null, 0, 0, 0);
      }
      distribution.advance();
    }
    for (int i = 0; i < valuesPerSlice / 2; i++) {
      distribution.record(
          (long) Math.exp(Math.log(5_000_000) + 1.2 * random.nextGaussian()), null, 0, 0, 0);
    }
  }

  @Benchmark
  public Distribution.Snapshot snapshot() {
    return distribution.read(reader);
  }
}
