package dev.spanprof.assembly;

/** Where the assembler hands completed traces: in the service, the {@link TraceWorkers}. */
@FunctionalInterface
public interface TraceHandoff {

  /**
   * Takes a completed trace without blocking, or returns false when there is no room now; the
   * caller then keeps the trace and offers it again later.
   */
  boolean offer(CompletedTrace trace);
}
