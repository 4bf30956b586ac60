package dev.spanprof.stages;

import dev.spanprof.analysis.trace.TraceAnalyzer;
import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.assembly.TraceSink;

/**
 * The trace sink of the service: analyse, then hand the profile to what comes after the analysis,
 * one consumer made of the stages in the order {@code wiring} states.
 */
public final class AnalysisStage implements TraceSink {

  private final TraceAnalyzer analyzer;
  private final ProfileConsumer consumer;

  public AnalysisStage(TraceAnalyzer analyzer, ProfileConsumer consumer) {
    this.analyzer = analyzer;
    this.consumer = consumer;
  }

  @Override
  public void accept(CompletedTrace trace) {
    TraceProfile profile = analyzer.analyze(trace.traceId(), trace.spans());
    consumer.accept(trace, profile, trace.arrivalEpochNanos());
  }

  @Override
  public boolean hasRoomFor(long queuedSpans, int traceSpans) {
    return consumer.hasRoomFor(queuedSpans, traceSpans);
  }
}
