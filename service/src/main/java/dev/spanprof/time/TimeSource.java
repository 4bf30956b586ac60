package dev.spanprof.time;

import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;

/**
 * The service's one view of time, passed in so that tests drive it instead of sleeping: a
 * monotonic clock for intervals and deadlines, the wall clock for what is stamped with a date,
 * and waiting.
 */
public interface TimeSource {

  /** Monotonic nanoseconds: only differences between readings mean anything. */
  long nanoTime();

  /** The wall clock: for exemplars' timestamps and pool windows, which are in span time. */
  Instant now();

  /**
   * The wall clock in nanoseconds since the epoch: what the windows across traces are cut by
   * (semantics.md §7), so that a slice is the same interval on every replica.
   */
  default long epochNanos() {
    Instant now = now();
    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
  }

  /**
   * Waits {@code duration}, or less once {@code wakeUp} is true: it is asked when the waiting
   * thread is unparked ({@link java.util.concurrent.locks.LockSupport#unpark}), so that a retry
   * waiting out its backoff goes at once when another sender found the next hop back.
   */
  void sleep(Duration duration, BooleanSupplier wakeUp) throws InterruptedException;

  /** The system's clocks, and waiting by parking the thread. */
  static TimeSource system() {
    return SystemTime.INSTANCE;
  }
}
