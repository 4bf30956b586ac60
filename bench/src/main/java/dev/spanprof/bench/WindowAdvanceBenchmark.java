package dev.spanprof.bench;

import dev.spanprof.analysis.distribution.Distribution;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * One series' window advance, which the service does for every series each tenth of the window
 * (10 s by default): the slice just recorded is added to the cumulative and window sums and kept
 * encoded, the slice leaving the window is decoded and subtracted, and the cumulative view is
 * ranked for {@code spanprof.duration_percentile}. The slice's values are recorded before each
 * advance, outside the measurement.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class WindowAdvanceBenchmark {

  private static final int SLICES = 6;

  /**
   * Values per slice: 500 stay young, kept as their indexes; 50 000 (a series at 5 000 spans/s)
   * move to dense counts after the first {@link Distribution#DENSE_AFTER_VALUES}.
   */
  @Param({"500", "50000"})
  public int valuesPerSlice;

  private Distribution distribution;
  private long[] values;

  @Setup(Level.Trial)
  public void setUp() {
    long[] bucketsNanos = {2_000_000, 10_000_000, 100_000_000, 1_000_000_000};
    distribution = new Distribution(2, SLICES, bucketsNanos, 0, 0);
    // Durations spread as request latencies are: log-normal around 5 ms, most within two decades.
    Random random = new Random(42);
    values = new long[valuesPerSlice];
    for (int i = 0; i < values.length; i++) {
      values[i] = (long) Math.exp(Math.log(5_000_000) + 1.2 * random.nextGaussian());
    }
    for (int slice = 0; slice < SLICES; slice++) {
      recordSlice();
      distribution.advance();
    }
  }

  @Setup(Level.Invocation)
  public void recordSlice() {
    for (long value : values) {
      distribution.record(value, null, 0, 0, 0);
    }
  }

  @Benchmark
  public void advance() {
    distribution.advance();
  }
}
