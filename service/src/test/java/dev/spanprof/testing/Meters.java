package dev.spanprof.testing;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/** Reads counters by name and tags; 0 when a series does not exist (yet). */
public final class Meters {

  private final MeterRegistry registry;

  public Meters(MeterRegistry registry) {
    this.registry = registry;
  }

  public double count(String name, String... tags) {
    Counter counter = registry.find(name).tags(tags).counter();
    return counter == null ? 0 : counter.count();
  }

  /** Every series of counter {@code name}, summed. */
  public double sum(String name) {
    return registry.find(name).counters().stream().mapToDouble(Counter::count).sum();
  }

  public double gauge(String name) {
    return registry.get(name).gauge().value();
  }
}
