package dev.spanprof.assembly;

/**
 * The analysis stage: receives each completed trace once, on a worker thread.
 *
 * <p>Implementations may be called concurrently for different traces.
 */
@FunctionalInterface
public interface TraceSink {

  void accept(CompletedTrace trace);
}
