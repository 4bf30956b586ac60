package dev.spanprof.stages;

import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.time.TimeSource;
import java.util.List;

/**
 * Receives each analysed trace. {@code profile.spans().get(i)} belongs to
 * {@code trace.spans().get(i)}, so per-span results can be attached to the spans they describe.
 * Called on a worker thread, concurrently for different traces.
 */
public interface ProfileConsumer {

  /**
   * @param nowNanos when the stage took the trace, on the service's {@link
   *     dev.spanprof.time.TimeSource}: one reading per trace for every consumer, since a
   *     clock read costs about 27 ns under KVM and waits for the memory reads before it
   *     ({@code PipelineBenchmark})
   */
  void accept(CompletedTrace trace, TraceProfile profile, long nowNanos);

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
