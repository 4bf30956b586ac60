package dev.spanprof.testing;

import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.assembly.TraceSink;
import dev.spanprof.span.TraceId;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The analysis stage for integration tests (property {@code test.sink=recording}): keeps every
 * completed trace, lets a test wait for traces to arrive, and can hold the workers still to fill
 * the queue.
 */
@Singleton
@Replaces(TraceSink.class)
@Requires(property = "test.sink", value = "recording")
public final class RecordingTraceSink implements TraceSink {

  private final List<CompletedTrace> traces = new ArrayList<>();
  private volatile CountDownLatch hold = new CountDownLatch(0);

  @Override
  public void accept(CompletedTrace trace) {
    try {
      hold.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    synchronized (this) {
      traces.add(trace);
      notifyAll();
    }
  }

  /** Makes the workers wait in the sink until {@link #release()}. */
  public void hold() {
    hold = new CountDownLatch(1);
  }

  public void release() {
    hold.countDown();
  }

  public synchronized List<CompletedTrace> traces() {
    return List.copyOf(traces);
  }

  /** The traces (and fragments) with these ids, once each id has arrived; fails after timeout. */
  public synchronized List<CompletedTrace> await(Collection<TraceId> ids, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Set<TraceId> missing = new HashSet<>(ids);
      List<CompletedTrace> found = new ArrayList<>();
      for (CompletedTrace trace : traces) {
        if (ids.contains(trace.traceId())) {
          found.add(trace);
          missing.remove(trace.traceId());
        }
      }
      if (missing.isEmpty()) {
        return found;
      }
      long remaining = deadline - System.nanoTime();
      if (remaining <= 0) {
        throw new AssertionError("traces never completed: " + missing);
      }
      TimeUnit.NANOSECONDS.timedWait(this, remaining);
    }
  }
}
