package dev.spanprof.analysis.tail;

import dev.spanprof.span.Operation;
import java.util.List;

/**
 * The tail window's additive state (semantics.md §7): per root operation, per slice, per 5 %
 * duration bucket, the count of traces, Σ D and Σ critical-path time per operation and per state.
 * States of replicas fed disjoint whole traces, merged by {@link TailWindow#merge}, break the tail
 * down exactly as one process fed all of them would.
 *
 * @param sliceNanos the slice length; slice k is the epoch interval [k·sliceNanos, (k+1)·sliceNanos)
 */
public record TailState(long sliceNanos, List<RootState> roots) {

  /**
   * One root's slices; a bucket's {@code operationNanos[i]} belongs to {@code operations.get(i)},
   * its {@code stateNanos[i]} to {@code states.get(i)}.
   */
  public record RootState(Operation root, List<Operation> operations, List<String> states,
      List<Slice> slices) {}

  public record Slice(long id, List<Bucket> buckets) {}

  /** The traces whose D falls in duration bucket {@code bucket} ({@code -1} holds 0). */
  public record Bucket(int bucket, long count, long durationNanos, long[] operationNanos,
      long[] stateNanos) {}
}
