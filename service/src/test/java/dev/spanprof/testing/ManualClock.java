package dev.spanprof.testing;

import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A wall clock a test sets; with {@code test.clock=manual} it replaces the service's clock. */
public final class ManualClock extends Clock {

  private volatile Instant now = Instant.EPOCH;

  public void set(Instant instant) {
    now = instant;
  }

  public void advance(Duration duration) {
    now = now.plus(duration);
  }

  @Override
  public Instant instant() {
    return now;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("tests use UTC");
  }

  @Factory
  @Requires(property = "test.clock", value = "manual")
  static final class ManualClockFactory {
    @Singleton
    @Replaces(Clock.class)
    ManualClock manualClock() {
      return new ManualClock();
    }
  }
}
