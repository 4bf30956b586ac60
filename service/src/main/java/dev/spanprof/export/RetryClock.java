package dev.spanprof.export;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The time retries are measured and waited in; tests pass one that moves on without waiting.
 */
public interface RetryClock {

  long nanoTime();

  /**
   * Waits {@code duration}, or less once {@code wakeUp} is true: it is asked when the waiting
   * thread is unparked ({@link LockSupport#unpark}), so that a retry waiting out its backoff
   * goes at once when another sender found the next hop back.
   */
  void sleep(Duration duration, BooleanSupplier wakeUp) throws InterruptedException;

  RetryClock SYSTEM = new RetryClock() {
    @Override
    public long nanoTime() {
      return System.nanoTime();
    }

    @Override
    public void sleep(Duration duration, BooleanSupplier wakeUp) throws InterruptedException {
      long deadline = System.nanoTime() + duration.toNanos();
      for (long left = duration.toNanos(); left > 0 && !wakeUp.getAsBoolean();
          left = deadline - System.nanoTime()) {
        LockSupport.parkNanos(this, left);
        if (Thread.interrupted()) {
          throw new InterruptedException();
        }
      }
    }
  };
}
