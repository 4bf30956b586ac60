package dev.spanprof.assembly;

import dev.spanprof.time.TimeSource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Time that moves only when a test says so. The monotonic clock moves by {@link #advance}, and
 * by every wait, which moves it on at once and is kept, so that a 30 s outage takes no real time
 * and its backoff can be checked; {@link #holdSleeps} makes the waits last until released (or
 * woken, as a retry is when another sender's request goes through). The wall clock moves with it,
 * from the system's clock or from the time a test sets, so that windows cut in epoch time age as
 * the test moves time on.
 */
public final class ManualTimeSource implements TimeSource {

  private static final long START_NANOS = 1_000_000_000L;

  private final AtomicLong nanos = new AtomicLong(START_NANOS);
  /** Null until a test sets it: then the system's. */
  private volatile Instant wall;
  /** The monotonic reading when the wall clock was set (or at the start). */
  private volatile long wallSetAtNanos = START_NANOS;
  private final List<Duration> sleeps = new ArrayList<>();
  private final Set<Thread> sleepers = ConcurrentHashMap.newKeySet();
  private volatile boolean held;

  @Override
  public long nanoTime() {
    return nanos.get();
  }

  public void advance(Duration duration) {
    nanos.addAndGet(duration.toNanos());
  }

  @Override
  public Instant now() {
    Instant set = wall;
    return (set != null ? set : Instant.now()).plusNanos(nanos.get() - wallSetAtNanos);
  }

  public synchronized void setWallClock(Instant instant) {
    wallSetAtNanos = nanos.get();
    wall = instant;
  }

  /** Moves the clock on at once; while sleeps are held, waits for the release or the wake-up. */
  @Override
  public void sleep(Duration duration, BooleanSupplier wakeUp) throws InterruptedException {
    synchronized (this) {
      sleeps.add(duration);
      nanos.addAndGet(duration.toNanos());
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
}
