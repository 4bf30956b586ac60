package dev.spanprof.testing;

import dev.spanprof.assembly.ManualTimeSource;
import dev.spanprof.time.TimeSource;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;

/**
 * With {@code test.time=manual}, the service's time is a {@link ManualTimeSource}: its clock moves
 * only when the test advances it or something waits, and its waits take no real time.
 */
@Factory
@Requires(property = "test.time", value = "manual")
final class ManualTimeFactory {

  @Singleton
  @Replaces(TimeSource.class)
  ManualTimeSource manualTimeSource() {
    return new ManualTimeSource();
  }
}
