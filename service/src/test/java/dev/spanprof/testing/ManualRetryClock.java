package dev.spanprof.testing;

import dev.spanprof.export.RetryClock;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * With {@code test.retry-clock=manual}: export retries "wait" by moving this clock on at once,
 * and every wait is kept, so a 30 s outage takes no real time and its backoff can be checked.
 * {@link #holdSleeps} makes the waits last until released (or woken, as a retry is when another
 * sender's request goes through), to keep a batch in its retries.
 */
public final class ManualRetryClock implements RetryClock {

  private final AtomicLong now = new AtomicLong();
  private final List<Duration> sleeps = new ArrayList<>();
  private final Set<Thread> sleepers = ConcurrentHashMap.newKeySet();
  private volatile boolean held;

  @Override
  public long nanoTime() {
    return now.get();
  }

  /** Moves the clock on at once; while sleeps are held, waits for the release or the wake-up. */
  @Override
  public void sleep(Duration duration, BooleanSupplier wakeUp) throws InterruptedException {
    synchronized (this) {
      sleeps.add(duration);
      now.addAndGet(duration.toNanos());
      notifyAll();
    }
    Thread self = Thread.currentThread();
    sleepers.add(self);
    try {
      while (held && !wakeUp.getAsBoolean()) {
        LockSupport.park(this);
        if (Thread.interrupted()) {
          throw new InterruptedException();
        }
      }
    } finally {
      sleepers.remove(self);
    }
  }

  /** Waits from now on last until {@link #releaseSleeps}, or until the sleeper is woken. */
  public void holdSleeps() {
    held = true;
  }

  public void releaseSleeps() {
    held = false;
    sleepers.forEach(LockSupport::unpark);
  }

  /** Waits until at least {@code count} waits have begun. */
  public synchronized void awaitSleeps(int count, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (sleeps.size() < count) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError("only " + sleeps.size() + " of " + count + " waits began");
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
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
