package dev.spanprof.stages;

import dev.spanprof.analysis.pool.PoolWindows;
import dev.spanprof.analysis.pool.PoolWindows.PoolWindow;
import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.config.AssemblyConfiguration;
import dev.spanprof.config.PoolsConfiguration;
import dev.spanprof.time.TimeSource;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Feeds every analysed trace's chosen-span segments into the {@link PoolWindows} and finalizes
 * due windows on a thread of its own, judging "due" by the wall clock against span time.
 */
@Singleton
public final class PoolService implements ProfileConsumer {

  private final PoolWindows windows;
  private final TimeSource time;
  private final List<PoolListener> listeners;
  private final Periodic finalizer;

  PoolService(PoolsConfiguration configuration, AssemblyConfiguration assembly, TimeSource time,
      List<PoolListener> listeners) {
    if (configuration.getLateness().compareTo(assembly.getTraceTimeout()) <= 0) {
      throw new IllegalArgumentException(PoolsConfiguration.PREFIX + ".lateness ("
          + configuration.getLateness() + ") must exceed " + AssemblyConfiguration.PREFIX
          + ".trace-timeout (" + assembly.getTraceTimeout()
          + "): a window must wait at least as long as its traces take to complete");
    }
    try {
      this.windows = new PoolWindows(configuration.getCapacity(), configuration.getWindow(),
          configuration.getLateness(), configuration.getMaxPools(), configuration.getRecentWindows());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "invalid " + PoolsConfiguration.PREFIX + " configuration: " + e.getMessage(), e);
    }
    this.time = time;
    this.listeners = List.copyOf(listeners);
    Duration interval = Duration.ofNanos(
        Math.min(configuration.getWindow().toNanos() / 2, Duration.ofSeconds(1).toNanos()));
    this.finalizer = Periodic.start("spanprof-pools", interval, this::finalizeDue);
  }

  @Override
  public void accept(CompletedTrace trace, TraceProfile profile, long arrivalNanos) {
    windows.add(profile.segments());
  }

  /** Publishes every window that is final by now; the schedule does this continuously. */
  public List<PoolWindow> finalizeDue() {
    Instant now = time.now();
    List<PoolWindow> finals = windows.finalizeDue(now.getEpochSecond() * 1_000_000_000L + now.getNano());
    for (PoolWindow window : finals) {
      for (PoolListener listener : listeners) {
        listener.onFinal(window);
      }
    }
    return finals;
  }

  /** The recent final windows per pool, oldest first. */
  public Map<String, List<PoolWindow>> recent() {
    return windows.recent();
  }

  public long lateSegments() {
    return windows.lateSegments();
  }

  public long droppedSegments() {
    return windows.droppedSegments();
  }

  @PreDestroy
  void stop() {
    finalizer.stop();
  }
}
