package dev.spanprof.stages;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task run at a fixed delay on a daemon thread of its own. A run that throws is logged and the
 * schedule goes on (a plain scheduled executor would silently never run the task again).
 */
public final class Periodic {

  private static final Logger LOG = LoggerFactory.getLogger(Periodic.class);

  private final ScheduledExecutorService executor;

  private Periodic(String threadName, Duration interval, Runnable task) {
    this.executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, threadName);
      thread.setDaemon(true);
      return thread;
    });
    long nanos = interval.toNanos();
    executor.scheduleWithFixedDelay(() -> {
      try {
        task.run();
      } catch (RuntimeException e) {
        LOG.error("{} failed; retrying at the next interval", threadName, e);
      }
    }, nanos, nanos, TimeUnit.NANOSECONDS);
  }

  public static Periodic start(String threadName, Duration interval, Runnable task) {
    return new Periodic(threadName, interval, task);
  }

  /** Stops the schedule; a run in progress is interrupted. */
  public void stop() {
    executor.shutdownNow();
  }
}
