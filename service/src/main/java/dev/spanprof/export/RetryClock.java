package dev.spanprof.export;

import java.time.Duration;

/**
 * The time retries are measured and waited in; tests pass one that moves on without waiting.
 */
public interface RetryClock {

  long nanoTime();

  void sleep(Duration duration) throws InterruptedException;

  RetryClock SYSTEM = new RetryClock() {
    @Override
    public long nanoTime() {
      return System.nanoTime();
    }

    @Override
    public void sleep(Duration duration) throws InterruptedException {
      Thread.sleep(duration.toMillis(), duration.toNanosPart() % 1_000_000);
    }
  };
}
