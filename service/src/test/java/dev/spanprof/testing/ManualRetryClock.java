package dev.spanprof.testing;

import dev.spanprof.export.RetryClock;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * With {@code test.retry-clock=manual}: export retries "wait" by moving this clock on at once,
 * and every wait is kept, so a 30 s outage takes no real time and its backoff can be checked.
 */
public final class ManualRetryClock implements RetryClock {

  private final AtomicLong now = new AtomicLong();
  private final List<Duration> sleeps = new ArrayList<>();

  @Override
  public long nanoTime() {
    return now.get();
  }

  @Override
  public synchronized void sleep(Duration duration) {
    sleeps.add(duration);
    now.addAndGet(duration.toNanos());
  }

  public synchronized List<Duration> sleeps() {
    return List.copyOf(sleeps);
  }

  @Factory
  @Requires(property = "test.retry-clock", value = "manual")
  static final class ManualRetryClockFactory {
    @Singleton
    @Replaces(RetryClock.class)
    ManualRetryClock manualRetryClock() {
      return new ManualRetryClock();
    }
  }
}
