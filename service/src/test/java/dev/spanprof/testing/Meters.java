package dev.spanprof.testing;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;

/**
 * Reads counters by name and tags, whether registered as a {@link Counter} or read from a sum as
 * a {@link FunctionCounter} (both are Prometheus counters); 0 when a series does not exist (yet).
 */
public final class Meters {

  private final MeterRegistry registry;

  public Meters(MeterRegistry registry) {
    this.registry = registry;
  }

  public double count(String name, String... tags) {
    Search search = registry.find(name).tags(tags);
    Counter counter = search.counter();
    if (counter != null) {
      return counter.count();
    }
    FunctionCounter functionCounter = search.functionCounter();
    return functionCounter == null ? 0 : functionCounter.count();
  }

  /** Every series of counter {@code name}, summed. */
  public double sum(String name) {
    return registry.find(name).counters().stream().mapToDouble(Counter::count).sum()
        + registry.find(name).functionCounters().stream().mapToDouble(FunctionCounter::count).sum();
  }

  public double gauge(String name, String... tags) {
    return registry.get(name).tags(tags).gauge().value();
  }
}
