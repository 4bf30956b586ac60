package dev.spanprof.bench;

import dev.spanprof.analysis.distribution.Distribution;
import dev.spanprof.analysis.distribution.DistributionRegistry;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.Arrays;

/**
 * The heap that busy distribution series take: {@code series} series (default 10 000), each
 * recording {@code values} durations per window slice (default 200, spread from 10 µs to 10 s)
 * through every slice of its sliding window, with exemplars, as the service's registry keeps
 * them. Measured with an open slice full too, just before the advance that would complete it:
 * the most a series holds in its cycle. A slice's traces are analysed a trace timeout after they
 * arrived, so its values come while it is the earlier of the two open slices, and the current one
 * holds next to none then (semantics.md §7).
 * Prints the heap used after a full collection, before and after, in total and per series; then
 * what reading every series' views takes, as a scrape of {@code /metrics} reads them (one reader
 * for all, the median of five passes).
 *
 * <p>{@code java -cp bench/target/benchmarks.jar dev.spanprof.bench.SeriesFootprint [series] [values]}
 */
public final class SeriesFootprint {

  private static final int SLICES = 6;

  private SeriesFootprint() {}

  public static void main(String[] args) {
    int series = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    int values = args.length > 1 ? Integer.parseInt(args[1]) : 200;
    long before = usedAfterGc();

    long[] bounds = {2_000_000, 10_000_000, 100_000_000, 1_000_000_000};
    DistributionRegistry registry =
        new DistributionRegistry(2, SLICES, bounds, series + 10, Duration.ofHours(1));
    BusySeries busy = new BusySeries();
    // As the service records them: a slice's traces analysed after its end, while it is the
    // earlier of the two open slices; measured before the advance that completes the last.
    for (int slice = 0; slice <= SLICES; slice++) {
      registry.advance(0, slice + 1);
      busy.fillSlice(registry, series, values, slice, 0);
    }

    long after = usedAfterGc();
    System.out.printf("%d series x %d values per slice, %d slices completed and an open one"
            + " full: %.1f MB, %.1f KB per series%n",
        registry.size(), values, SLICES, (after - before) / 1e6,
        (after - before) / 1e3 / registry.size());

    long[] passNanos = new long[5];
    long counted = 0;
    for (int pass = 0; pass < passNanos.length; pass++) {
      Distribution.Reader reader = registry.reader();
      long start = System.nanoTime();
      for (Distribution distribution : registry.all().values()) {
        counted += distribution.read(reader).window().getTotalCount();
      }
      passNanos[pass] = System.nanoTime() - start;
    }
    Arrays.sort(passNanos);
    System.out.printf("reading every series' views: %.1f ms a pass, %.1f µs per series"
            + " (%d values in the windows read)%n", passNanos[2] / 1e6,
        passNanos[2] / 1e3 / registry.size(), counted / passNanos.length);
  }

  static long usedAfterGc() {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    for (int i = 0; i < 3; i++) {
      System.gc(); // a full, stop-the-world collection with the default G1 settings
    }
    return memory.getHeapMemoryUsage().getUsed();
  }
}
