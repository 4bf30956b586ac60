package dev.spanprof.assembly;

/**
 * What assembly reports as it works; the service binds it to Micrometer.
 *
 * <p>The counts relate as follows at every instant: spans accepted = spans buffered + spans of
 * completed traces. Completed spans then pass through the worker queue to the sink, where each is
 * either analysed or reported to {@link #onSinkFailure}.
 */
public interface AssemblyListener {

  /** {@code count} spans arrived for traces that had already been completed. */
  void onLateSpans(int count);

  /** A trace was completed and handed to the workers. */
  void onTraceCompleted(CompletedTrace trace);

  /** The sink threw while processing {@code trace}; its spans are lost to the analysis. */
  void onSinkFailure(CompletedTrace trace, RuntimeException failure);

  AssemblyListener NOOP = new AssemblyListener() {
    @Override
    public void onLateSpans(int count) {}

    @Override
    public void onTraceCompleted(CompletedTrace trace) {}

    @Override
    public void onSinkFailure(CompletedTrace trace, RuntimeException failure) {}
  };
}
