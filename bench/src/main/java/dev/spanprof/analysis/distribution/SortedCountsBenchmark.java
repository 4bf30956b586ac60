package dev.spanprof.analysis.distribution;

import java.util.concurrent.ThreadLocalRandom;
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
 * Counting one value in a young window slice's sparse counts, as a series does while it has seen
 * fewer than {@link Distribution#DENSE_AFTER_VALUES} values in the slice: at 10 000 series their
 * counts are mostly out of the core's caches, as in the service at moderate rates.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SortedCountsBenchmark {

  /** Indexes holding a count per slice: about what a busy duration series holds at 2 digits. */
  private static final int HELD_INDEXES = 200;

  @Param({"100", "10000"})
  public int series;

  private SortedCounts[] all;
  private int[] held;

  /**
   * Each iteration starts from fresh counts: at 100 series, about 1 000 increments per index and
   * second of iteration, under a count's limit of 65 535 for iterations of up to a minute.
   */
  @Setup(Level.Iteration)
  public void setUp() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    held = random.ints(0, 3_000).distinct().limit(HELD_INDEXES).toArray();
    all = new SortedCounts[series];
    for (int i = 0; i < series; i++) {
      all[i] = new SortedCounts();
      for (int index : held) {
        all[i].increment(index);
      }
    }
  }

  @Benchmark
  public SortedCounts increment() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    SortedCounts counts = all[random.nextInt(series)];
    counts.increment(held[random.nextInt(HELD_INDEXES)]);
    return counts;
  }
}
