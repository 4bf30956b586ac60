package dev.spanprof.stages;

import dev.spanprof.time.TimeSource;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task run at a fixed delay, or at multiples of its interval in epoch time, on a daemon thread
 * of its own. A run that throws is logged and the schedule goes on (a plain scheduled executor
 * would silently never run the task again).
 */
public final class Periodic {

  private static final Logger LOG = LoggerFactory.getLogger(Periodic.class);

  private final ScheduledExecutorService executor;
  private final String threadName;
  private final Runnable task;

  private Periodic(String threadName, Runnable task) {
    this.executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, threadName);
      thread.setDaemon(true);
      return thread;
    });
    this.threadName = threadName;
    this.task = task;
  }

  public static Periodic start(String threadName, Duration interval, Runnable task) {
    Periodic periodic = new Periodic(threadName, task);
    long nanos = interval.toNanos();
    periodic.executor.scheduleWithFixedDelay(periodic::run, nanos, nanos, TimeUnit.NANOSECONDS);
    return periodic;
  }

  /**
   * Runs {@code task} just after each multiple of {@code interval} in epoch time on {@code time}'s
   * wall clock, so that processes started at different moments run it at the same instants.
   */
  public static Periodic startAligned(String threadName, Duration interval, TimeSource time,
      Runnable task) {
    return startAligned(threadName, interval, Duration.ZERO, time, task);
  }

  /** As {@link #startAligned(String, Duration, TimeSource, Runnable)}, {@code offset} after each. */
  public static Periodic startAligned(String threadName, Duration interval, Duration offset,
      TimeSource time, Runnable task) {
    Periodic periodic = new Periodic(threadName, task);
    periodic.scheduleAligned(interval.toNanos(), offset.toNanos(), time);
    return periodic;
  }

  /** Nanoseconds from {@code epochNanos} to the next multiple of {@code intervalNanos} after it. */
  static long nanosToNextMultiple(long epochNanos, long intervalNanos) {
    return intervalNanos - Math.floorMod(epochNanos, intervalNanos);
  }

  private void scheduleAligned(long intervalNanos, long offsetNanos, TimeSource time) {
    // One run at a time, each scheduling the next from the wall clock: no drift from it.
    try {
      executor.schedule(() -> {
        run();
        scheduleAligned(intervalNanos, offsetNanos, time);
      }, nanosToNextMultiple(time.epochNanos() - offsetNanos, intervalNanos),
          TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException stopped) {
      // stop() was called: the schedule ends here.
    }
  }

  private void run() {
    try {
      task.run();
    } catch (RuntimeException e) {
      LOG.error("{} failed; retrying at the next interval", threadName, e);
    }
  }

  /** Stops the schedule; a run in progress is interrupted. */
  public void stop() {
    executor.shutdownNow();
  }
}
