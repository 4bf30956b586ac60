package dev.spanprof.analysis.ranking;

import dev.spanprof.span.Operation;
import java.util.List;

/**
 * The call ranking's additive state (semantics.md §7): per slice of its window, per root
 * operation, the counts and sums every figure of {@link RankingSnapshot} derives from. States of
 * replicas fed disjoint whole traces, merged by {@link CallRanking#merge}, rank exactly as one
 * process fed all of them would.
 *
 * @param sliceNanos the slice length; slice k is the epoch interval [k·sliceNanos, (k+1)·sliceNanos)
 */
public record RankingState(long sliceNanos, List<Slice> slices) {

  /** @param fragments late fragments' spans, under no root; null when it holds none */
  public record Slice(long id, List<RootSums> roots, RootSums fragments) {}

  /** @param root the traces' primary root operation; null for late fragments */
  public record RootSums(Operation root, long durationNanos, List<OperationSums> operations) {}

  /**
   * One operation's figures under one root: its durations counted by HdrHistogram's counts index
   * at 2 significant digits, {@code durationIndexes[i]} occurring {@code durationCounts[i]} times.
   */
  public record OperationSums(
      Operation operation,
      long count,
      long errors,
      Moments duration,
      Moments selfTime,
      long criticalPathNanos,
      int[] durationIndexes,
      long[] durationCounts,
      List<CallSums> calls) {}

  /** Σ, Σ², min and max of one quantity; its count is the operation's. */
  public record Moments(double sum, double sumOfSquares, long min, long max) {}

  /** The calls from the operation that holds them to {@code callee}. */
  public record CallSums(Operation callee, long count, double sumNanos, long maxNanos) {}
}
