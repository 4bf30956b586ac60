package dev.spanprof.analysis.pool;

import dev.spanprof.span.StateClass;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Utilization and CPU attribution of one pool of capacity R over an interval (semantics.md §3),
 * from the chosen spans of its resources, added one segment at a time in any order.
 *
 * <p>Each segment adds its cores at its start and removes them at its end; {@link #finish} then
 * sweeps the change points once. Because segments are only summed until then, the segments of
 * many traces that overlap on one pool are accounted together, exactly as if they had been one
 * trace — the per-trace analysis and the continuous pool windows share this class for that.
 *
 * <p>At every change point: running = Σ cores of cpu-class resources, waiting_k = Σ cores in wait
 * state k, w = Σ_k waiting_k; cpu += min(running, R); unused = R − min(running, R); if w ≤ unused
 * each k gets waiting_k and idle gets unused − w, else each k gets waiting_k·unused/w. An idle
 * state occupies nothing. Utilization U_c = ∫ cores of category c / (R·length);
 * U_idle = max(0, 1 − Σ_c U_c).
 *
 * <p>Not thread-safe.
 */
public final class PoolSweep {

  private final double capacity;
  private final TreeMap<Long, Change> changes = new TreeMap<>();
  private final Map<String, Boolean> waitStates = new TreeMap<>();
  private final Map<String, Boolean> categories = new TreeMap<>();

  public PoolSweep(double capacity) {
    this.capacity = capacity;
  }

  /**
   * Utilization per category (and "idle") and attribution per class (cpu, idle, wait states);
   * {@code occupiedNs} is A_c per category, in core-nanoseconds, what adds up across replicas.
   */
  public record Figures(
      double capacity,
      double availableNs,
      Map<String, Double> utilization,
      Map<String, Double> attributionNs,
      Map<String, Double> occupiedNs) {}

  /** The category for what no category occupies. */
  public static final String IDLE = "idle";

  /**
   * U_c = A_c / A_r per category and U_idle = max(0, 1 − Σ U_c), never clamping U_c
   * (semantics.md §3); from A_c per category and A_r, {@code availableNs}.
   */
  public static Map<String, Double> utilization(Map<String, Double> occupiedNs,
      double availableNs) {
    Map<String, Double> utilization = new TreeMap<>();
    double used = 0;
    for (Map.Entry<String, Double> category : occupiedNs.entrySet()) {
      double share = availableNs == 0 ? 0 : category.getValue() / availableNs;
      utilization.put(category.getKey(), share);
      used += share;
    }
    utilization.put(IDLE, Math.max(0, 1 - used));
    return utilization;
  }

  /**
   * A resource of the pool was in {@code state} over [fromNanos, toNanos) with {@code cores}
   * cores. Empty intervals are ignored.
   */
  public void add(String state, StateClass stateClass, String category, double cores,
      long fromNanos, long toNanos) {
    if (toNanos <= fromNanos || stateClass == StateClass.IDLE) {
      return;
    }
    changes.computeIfAbsent(fromNanos, unused -> new Change()).add(state, stateClass, category, cores);
    changes.computeIfAbsent(toNanos, unused -> new Change()).add(state, stateClass, category, -cores);
    categories.put(category, true);
    if (stateClass == StateClass.WAIT) {
      waitStates.put(state, true);
    }
  }

  /** The figures over [fromNanos, toNanos); segments should lie inside it. */
  public Figures finish(long fromNanos, long toNanos) {
    double running = 0;
    Map<String, Double> waiting = new HashMap<>();
    Map<String, Double> occupied = new HashMap<>();
    Map<String, Double> attribution = new TreeMap<>();
    Map<String, Double> occupiedNs = new TreeMap<>();
    attribution.put("cpu", 0.0);
    attribution.put(IDLE, 0.0);
    waitStates.keySet().forEach(state -> attribution.put(state, 0.0));
    categories.keySet().forEach(category -> occupiedNs.put(category, 0.0));
    long previous = fromNanos;
    for (Map.Entry<Long, Change> entry : changes.subMap(fromNanos, true, toNanos, false).entrySet()) {
      account(entry.getKey() - previous, running, waiting, occupied, attribution, occupiedNs);
      Change change = entry.getValue();
      running += change.running;
      change.waiting.forEach((state, cores) -> waiting.merge(state, cores, Double::sum));
      change.occupied.forEach((category, cores) -> occupied.merge(category, cores, Double::sum));
      previous = entry.getKey();
    }
    account(toNanos - previous, running, waiting, occupied, attribution, occupiedNs);

    double available = capacity * (toNanos - fromNanos);
    return new Figures(capacity, available, utilization(occupiedNs, available), attribution,
        occupiedNs);
  }

  private void account(double dt, double running, Map<String, Double> waiting,
      Map<String, Double> occupied, Map<String, Double> attribution,
      Map<String, Double> occupiedNs) {
    if (dt <= 0) {
      return;
    }
    double used = Math.min(running, capacity);
    attribution.merge("cpu", used * dt, Double::sum);
    double unused = capacity - used;
    double w = 0;
    for (double cores : waiting.values()) {
      w += cores;
    }
    double share = w <= unused ? 1 : unused / w;
    for (Map.Entry<String, Double> state : waiting.entrySet()) {
      attribution.merge(state.getKey(), state.getValue() * share * dt, Double::sum);
    }
    if (w <= unused) {
      attribution.merge(IDLE, (unused - w) * dt, Double::sum);
    }
    for (Map.Entry<String, Double> category : occupied.entrySet()) {
      occupiedNs.merge(category.getKey(), category.getValue() * dt, Double::sum);
    }
  }

  /** What changes at one instant: cores starting (positive) or ending (negative). */
  private static final class Change {
    double running;
    final Map<String, Double> waiting = new HashMap<>(4);
    final Map<String, Double> occupied = new HashMap<>(4);

    void add(String state, StateClass stateClass, String category, double cores) {
      if (stateClass == StateClass.CPU) {
        running += cores;
      } else {
        waiting.merge(state, cores, Double::sum);
      }
      occupied.merge(category, cores, Double::sum);
    }
  }
}
