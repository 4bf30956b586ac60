package dev.spanprof.assembly;

/** Where the assembler hands completed traces: in the service, the {@link TraceWorkers}. */
@FunctionalInterface
public interface TraceHandoff {

  /**
   * Takes a completed trace without blocking, or returns false when there is no room now; the
   * caller then keeps the trace and offers it again later.
   */
  boolean offer(CompletedTrace trace);

  /**
   * Whether {@link #offer} would take a trace of {@code traceSpans} spans now, asked without
   * taking anything: another thread may change the answer the moment after.
   */
  default boolean hasRoomFor(int traceSpans) {
    return true;
  }
}
