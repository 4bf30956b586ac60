package dev.spanprof.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.DoubleAdder;

/**
 * A counter the analysis adds to per trace: a {@link DoubleAdder} the registry reads at scrape
 * time as a {@link FunctionCounter}. Exported exactly as a {@code Counter} of the same name, unit
 * and tags would be; but an increment is one adder's, where the injected composite registry's
 * counter forwards each to every child registry's counter ({@code CompositeCounter.increment}
 * was 4.6 % of {@code PipelineBenchmark}, async-profiler).
 *
 * <p>Each instance registers its own meter, so callers create one per name and tags (they keep
 * them in maps keyed by the tags); a second instance of the same meter would not be read. The
 * registry holds the adder weakly, so this object must stay reachable as long as it counts.
 */
final class SumCounter {

  private final DoubleAdder sum = new DoubleAdder();

  SumCounter(MeterRegistry registry, String name, String description, String baseUnit,
      String... tags) {
    FunctionCounter.builder(name, sum, DoubleAdder::sum)
        .description(description)
        .baseUnit(baseUnit)
        .tags(tags)
        .register(registry);
  }

  void add(double amount) {
    sum.add(amount);
  }
}
