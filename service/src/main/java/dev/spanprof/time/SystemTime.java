package dev.spanprof.time;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** {@link System#nanoTime}, the system's UTC clock, and parking to wait. */
final class SystemTime implements TimeSource {

  static final SystemTime INSTANCE = new SystemTime();

  private SystemTime() {}

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }

  @Override
  public Instant now() {
    return Instant.now();
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
}
