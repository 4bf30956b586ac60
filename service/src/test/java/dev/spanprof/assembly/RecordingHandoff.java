package dev.spanprof.assembly;

import java.util.ArrayList;
import java.util.List;

/** A hand-off that keeps what it is given, and can be told to refuse. */
final class RecordingHandoff implements TraceHandoff {

  final List<CompletedTrace> traces = new ArrayList<>();
  volatile boolean refusing;

  @Override
  public synchronized boolean offer(CompletedTrace trace) {
    if (refusing) {
      return false;
    }
    traces.add(trace);
    return true;
  }

  synchronized int spanCount() {
    return traces.stream().mapToInt(CompletedTrace::spanCount).sum();
  }
}
