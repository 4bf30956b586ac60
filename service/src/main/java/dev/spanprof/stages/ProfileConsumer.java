package dev.spanprof.stages;

import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.assembly.CompletedTrace;
import java.util.List;

/**
 * Receives each analysed trace. {@code profile.spans().get(i)} belongs to
 * {@code trace.spans().get(i)}, so per-span results can be attached to the spans they describe.
 * Called on a worker thread, concurrently for different traces.
 */
public interface ProfileConsumer {

  /**
   * @param arrivalNanos the trace's arrival ({@link CompletedTrace#arrivalEpochNanos}, epoch
   *     nanoseconds): the slice of every window it is counted in (semantics.md §7), the same on
   *     every replica, and the time its exemplars carry
   */
  void accept(CompletedTrace trace, TraceProfile profile, long arrivalNanos);

  /**
   * Whether this consumer can take a trace of {@code traceSpans} now, besides the
   * {@code queuedSpans} waiting for analysis (see {@code TraceSink.hasRoomFor}).
   */
  default boolean hasRoomFor(long queuedSpans, int traceSpans) {
    return true;
  }

  /**
   * {@code consumers} as one, each trace handed to them in the order given, as
   * opentelemetry-java's {@code SpanProcessor.composite} does.
   */
  static ProfileConsumer composite(List<ProfileConsumer> consumers) {
    return new CompositeProfileConsumer(List.copyOf(consumers));
  }
}
