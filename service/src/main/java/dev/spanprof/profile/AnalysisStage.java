package dev.spanprof.profile;

import dev.spanprof.analysis.trace.TraceAnalyzer;
import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.assembly.TraceSink;
import dev.spanprof.time.TimeSource;
import jakarta.inject.Singleton;
import java.util.List;

/** The trace sink of the service: analyse, then publish to every consumer. */
@Singleton
final class AnalysisStage implements TraceSink {

  private final TraceAnalyzer analyzer;
  private final List<ProfileConsumer> consumers;
  private final TimeSource time;

  AnalysisStage(TraceAnalyzer analyzer, List<ProfileConsumer> consumers, TimeSource time) {
    this.analyzer = analyzer;
    this.consumers = List.copyOf(consumers);
    this.time = time;
  }

  @Override
  public void accept(CompletedTrace trace) {
    TraceProfile profile = analyzer.analyze(trace.traceId(), trace.spans());
    long nowNanos = time.nanoTime();
    for (ProfileConsumer consumer : consumers) {
      consumer.accept(trace, profile, nowNanos);
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
