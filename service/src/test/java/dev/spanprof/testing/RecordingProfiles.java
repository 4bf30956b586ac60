package dev.spanprof.testing;

import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.span.TraceId;
import dev.spanprof.stages.ProfileConsumer;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Order;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * With {@code test.profiles=recording}: one more profile consumer, called after the service's
 * own (lowest precedence), so once a test sees a profile here every other consumer has too.
 */
@Singleton
@Order(Integer.MAX_VALUE)
@Requires(property = "test.profiles", value = "recording")
public final class RecordingProfiles implements ProfileConsumer {

  private final Map<TraceId, TraceProfile> profiles = new HashMap<>();
  private final Map<TraceId, Integer> analyses = new HashMap<>();

  @Override
  public synchronized void accept(CompletedTrace trace, TraceProfile profile, long nowNanos) {
    profiles.put(trace.traceId(), profile);
    analyses.merge(trace.traceId(), 1, Integer::sum);
    notifyAll();
  }

  /** Waits until the trace was analysed {@code count} times (its fragments each once). */
  public synchronized void awaitAnalyses(TraceId traceId, int count, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (analyses.getOrDefault(traceId, 0) < count) {
      long remaining = deadline - System.nanoTime();
      if (remaining <= 0) {
        throw new AssertionError("trace " + traceId + " was analysed "
            + analyses.getOrDefault(traceId, 0) + " times, not " + count);
      }
      TimeUnit.NANOSECONDS.timedWait(this, remaining);
    }
  }

  public synchronized TraceProfile await(TraceId traceId, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!profiles.containsKey(traceId)) {
      long remaining = deadline - System.nanoTime();
      if (remaining <= 0) {
        throw new AssertionError("trace " + traceId + " was never analysed");
      }
      TimeUnit.NANOSECONDS.timedWait(this, remaining);
    }
    return profiles.get(traceId);
  }
}
