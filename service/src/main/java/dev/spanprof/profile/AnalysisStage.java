package dev.spanprof.profile;

import dev.spanprof.analysis.TraceAnalyzer;
import dev.spanprof.analysis.TraceProfile;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.assembly.TraceSink;
import jakarta.inject.Singleton;
import java.util.List;

/** The trace sink of the service: analyse, then publish to every consumer. */
@Singleton
final class AnalysisStage implements TraceSink {

  private final TraceAnalyzer analyzer;
  private final List<ProfileConsumer> consumers;

  AnalysisStage(TraceAnalyzer analyzer, List<ProfileConsumer> consumers) {
    this.analyzer = analyzer;
    this.consumers = List.copyOf(consumers);
  }

  @Override
  public void accept(CompletedTrace trace) {
    TraceProfile profile = analyzer.analyze(trace.traceId(), trace.spans());
    for (ProfileConsumer consumer : consumers) {
      consumer.accept(trace, profile);
    }
  }

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
