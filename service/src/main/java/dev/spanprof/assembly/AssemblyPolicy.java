package dev.spanprof.assembly;

import java.time.Duration;
import java.util.Objects;

/**
 * When traces complete and how much assembly may hold.
 *
 * @param traceTimeout a trace completes when no span of it arrived for this long
 * @param maxTraceAge a trace completes when it has been open this long, even if spans still come
 * @param maxBufferedSpans the most spans held while their traces are open
 * @param maxSpansPerTrace a trace with this many spans completes at once; later spans of it form a
 *     new fragment
 * @param recentTraceIds how many completed trace ids are remembered to recognise late spans
 */
public record AssemblyPolicy(
    Duration traceTimeout,
    Duration maxTraceAge,
    long maxBufferedSpans,
    int maxSpansPerTrace,
    int recentTraceIds) {

  public AssemblyPolicy {
    requirePositive(traceTimeout, "traceTimeout");
    requirePositive(maxTraceAge, "maxTraceAge");
    if (maxBufferedSpans < 1) {
      throw new IllegalArgumentException("maxBufferedSpans must be at least 1, was " + maxBufferedSpans);
    }
    if (maxSpansPerTrace < 1) {
      throw new IllegalArgumentException("maxSpansPerTrace must be at least 1, was " + maxSpansPerTrace);
    }
    if (recentTraceIds < 0) {
      throw new IllegalArgumentException("recentTraceIds must not be negative, was " + recentTraceIds);
    }
  }

  private static void requirePositive(Duration duration, String name) {
    Objects.requireNonNull(duration, name);
    if (duration.isNegative() || duration.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, was " + duration);
    }
  }
}
