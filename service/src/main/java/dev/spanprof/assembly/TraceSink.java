package dev.spanprof.assembly;

/**
 * The analysis stage: receives each completed trace once, on a worker thread.
 *
 * <p>Implementations may be called concurrently for different traces.
 */
@FunctionalInterface
public interface TraceSink {

  void accept(CompletedTrace trace);

  /**
   * Whether what follows the analysis can take a trace of {@code traceSpans} now, besides the
   * {@code queuedSpans} already waiting for analysis. While it cannot, the {@link TraceWorkers}
   * take no trace, so a slow next hop holds the assembler back and ingest refuses, instead of
   * analysed spans being dropped on their way out. With nothing queued anywhere, any trace fits.
   */
  default boolean hasRoomFor(long queuedSpans, int traceSpans) {
    return true;
  }
}
