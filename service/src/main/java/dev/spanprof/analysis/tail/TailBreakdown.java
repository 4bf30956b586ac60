package dev.spanprof.analysis.tail;

import dev.spanprof.span.Operation;
import java.util.List;

/**
 * One root operation's tail, semantics.md §6: its slow traces S (primary-root duration at least
 * θ) against all its traces A in the window, per operation and per state on the critical path.
 *
 * @param quantile the q asked for
 * @param thetaNs θ as used: the lower bound of the 5 % duration bucket of the q-quantile
 * @param slowTraces |S|
 * @param allTraces |A|
 * @param meanSlowNs meanSlow(D): the slow traces' mean duration
 * @param meanAllNs meanAll(D)
 * @param operations per operation, largest excess first; the excesses sum to
 *     meanSlowNs − meanAllNs
 * @param states the same per state
 */
public record TailBreakdown(
    Operation root,
    double quantile,
    long thetaNs,
    long slowTraces,
    long allTraces,
    double meanSlowNs,
    double meanAllNs,
    List<Row<Operation>> operations,
    List<Row<String>> states) {

  /**
   * @param shareSlow Σ_S cp / Σ_S D
   * @param shareAll Σ_A cp / Σ_A D
   */
  public record Row<K>(
      K key, double meanSlowNs, double meanAllNs, double excessNs, double shareSlow,
      double shareAll) {}
}
