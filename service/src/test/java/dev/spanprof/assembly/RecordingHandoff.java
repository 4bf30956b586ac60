package dev.spanprof.assembly;

import java.util.ArrayList;
import java.util.List;

/**
 * A hand-off that keeps what it is given, and can be told to refuse every trace or those of more
 * than {@code maxTraceSpans} spans.
 */
final class RecordingHandoff implements TraceHandoff {

  final List<CompletedTrace> traces = new ArrayList<>();
  volatile boolean refusing;
  volatile int maxTraceSpans = Integer.MAX_VALUE;

  @Override
  public synchronized boolean offer(CompletedTrace trace) {
    if (!hasRoomFor(trace.spanCount())) {
      return false;
    }
    traces.add(trace);
    return true;
  }

  @Override
  public boolean hasRoomFor(int traceSpans) {
    return !refusing && traceSpans <= maxTraceSpans;
  }

  synchronized int spanCount() {
    return traces.stream().mapToInt(CompletedTrace::spanCount).sum();
  }
}
