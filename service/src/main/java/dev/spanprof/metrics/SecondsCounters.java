package dev.spanprof.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Counters in seconds that the analysis increments together, once per trace (an operation's span,
 * self and critical-path time; a state's inclusive and exclusive time): plain sums in one object
 * under one lock, each read by the registry at scrape time as a {@link FunctionCounter}. Exported
 * exactly as a {@code Counter} of the same name, unit and tags would be.
 *
 * <p>Why not a counter or an adder each: a trace's increments then touch one object per group
 * instead of two per counter (the counter and its adder), and those objects are mostly out of
 * the core's caches when a trace comes to be analysed ({@code PipelineBenchmark} from memory); and
 * one lock is taken where each adder made an atomic update. Before that, the injected composite
 * registry's counters forwarded each increment to every child registry's counter
 * ({@code CompositeCounter.increment} was 4.6 % of {@code PipelineBenchmark}, async-profiler).
 *
 * <p>The registry holds the group weakly, so callers keep it reachable (in maps keyed by the
 * tags) as long as it counts; and they make one per name and tags, since a second meter of the
 * same name and tags would not be read.
 */
final class SecondsCounters {

  private final double[] sums;

  SecondsCounters(int size) {
    this.sums = new double[size];
  }

  /** Registers sum {@code index} as the counter {@code name} with {@code tags}. */
  SecondsCounters register(int index, MeterRegistry registry, String name, String description,
      String... tags) {
    FunctionCounter.builder(name, this, counters -> counters.sum(index))
        .description(description)
        .baseUnit("seconds")
        .tags(tags)
        .register(registry);
    return this;
  }

  synchronized void add(double first) {
    sums[0] += first;
  }

  synchronized void add(double first, double second) {
    sums[0] += first;
    sums[1] += second;
  }

  synchronized void add(double first, double second, double third) {
    sums[0] += first;
    sums[1] += second;
    sums[2] += third;
  }

  private synchronized double sum(int index) {
    return sums[index];
  }
}
