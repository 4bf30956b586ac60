package dev.spanprof.testing;

import dev.spanprof.analysis.span.TraceId;
import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.profile.ProfileConsumer;
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

  @Override
  public synchronized void accept(CompletedTrace trace, TraceProfile profile, long nowNanos) {
    profiles.put(trace.traceId(), profile);
    notifyAll();
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
