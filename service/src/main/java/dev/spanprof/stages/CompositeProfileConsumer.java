package dev.spanprof.stages;

import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.assembly.CompletedTrace;
import java.util.List;

/** Several consumers in a stated order, as one ({@link ProfileConsumer#composite}). */
final class CompositeProfileConsumer implements ProfileConsumer {

  private final ProfileConsumer[] consumers;

  CompositeProfileConsumer(List<ProfileConsumer> consumers) {
    this.consumers = consumers.toArray(ProfileConsumer[]::new);
  }

  @Override
  public void accept(CompletedTrace trace, TraceProfile profile, long arrivalNanos) {
    for (ProfileConsumer consumer : consumers) {
      consumer.accept(trace, profile, arrivalNanos);
    }
  }

  /** Room only when every consumer has room: the slowest holds the analysis back. */
  @Override
  public boolean hasRoomFor(long queuedSpans, int traceSpans) {
    for (ProfileConsumer consumer : consumers) {
      if (!consumer.hasRoomFor(queuedSpans, traceSpans)) {
        return false;
      }
    }
    return true;
  }
}
