package dev.spanprof.stages;

import dev.spanprof.analysis.trace.TraceAnalyzer;
import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.assembly.TraceSink;
import dev.spanprof.span.SpanRecord;
import java.util.List;

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

  /**
   * Then tells each span's origin its analysis is done and its forwarding handed on, or, when
   * they threw (the trace then counted as failed), that nothing is left of it. A trace whose
   * spans may no longer be analysed here ({@link #beginAnalysis}) is left alone.
   */
  @Override
  public void accept(CompletedTrace trace) {
    if (!beginAnalysis(trace.spans())) {
      return;
    }
    try {
      TraceProfile profile = analyzer.analyze(trace.traceId(), trace.spans());
      consumer.accept(trace, profile, trace.arrivalEpochNanos());
    } catch (RuntimeException e) {
      for (SpanRecord span : trace.spans()) {
        span.origin().failed();
      }
      throw e;
    }
    for (SpanRecord span : trace.spans()) {
      span.origin().stepDone();
    }
  }

  /**
   * Whether every span's origin lets its analysis begin here; when one does not (the log
   * partition it came from was given up, its next owner reads the trace again), none is
   * analysed, and each is told so.
   */
  private static boolean beginAnalysis(List<SpanRecord> spans) {
    for (SpanRecord span : spans) {
      if (!span.origin().beginAnalysis()) {
        for (SpanRecord abandoned : spans) {
          abandoned.origin().abandon();
        }
        return false;
      }
    }
    return true;
  }

  @Override
  public boolean hasRoomFor(long queuedSpans, int traceSpans) {
    return consumer.hasRoomFor(queuedSpans, traceSpans);
  }
}
