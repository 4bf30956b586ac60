package dev.spanprof.analysis.ranking;

import dev.spanprof.analysis.internal.CountsIndex;
import dev.spanprof.analysis.internal.StampedSlots;
import dev.spanprof.analysis.trace.PathTimes;
import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.analysis.trace.TraceProfile.SpanProfile;
import dev.spanprof.span.Operation;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.SpanStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The call ranking of semantics.md §4 over a sliding window of analysed traces.
 *
 * <p>Every parent→child span pair adds a call transition parent→child and a return transition
 * child→parent between their operations. The involvement of an operation is the stationary
 * distribution π of P' = (1 − ε)·P + ε/N, P the row-normalised transition counts (rows with no
 * transitions uniform). Beside it, per operation, the static figures (count, errors, duration
 * and self time mean/min/max/standard deviation, duration p50 and p99, critical-path time) and
 * per edge the conditional ones (count, mean and max duration of the callee under that caller).
 * Every figure of a row covers the same traces: the quantiles are counted here ({@link
 * SparseCounts}), not read from the distributions' window of another length.
 *
 * <p><b>Critical-path share.</b> cp(o, T) and D(T) of semantics.md §6: the primary root's path
 * only, so that Σ_o cp(o, T) = D(T) and the shares of all operations sum to 1. A late fragment
 * (semantics.md §2) is no trace of its own: its spans count in every per-span figure, but it adds
 * no critical-path time, no duration D and belongs to no root.
 *
 * <p><b>Per root operation.</b> Every figure is kept by the operation of the trace's primary root,
 * so a ranking can be asked over one root's traces ({@link #snapshot(long, Operation)}) as well as
 * over all, each of its rows over the same traces. Roots are operations, admitted under the same
 * limit.
 *
 * <p><b>Window.</b> A trace is added to the bucket of its arrival, buckets cut at multiples of their
 * length from the clock's zero, so that on the epoch clock a bucket is the same interval on every
 * replica (semantics.md §7); the window is {@value #BUCKETS} buckets, so data ages out a tenth of
 * a window at a time. Traces complete out of arrival order, so a trace may go to a bucket before
 * the newest; one whose bucket has left the window is counted in none.
 *
 * <p><b>Power iteration.</b> Call and return counts are equal, so the chain without smoothing is
 * a reversible walk: within each connected group of operations π is proportional to the
 * weighted degree, and as ε → 0 each group keeps the share of the uniform jump that lands in it.
 * The iteration starts from that limit and steps the lazy chain ½(I + P'), which has the same
 * stationary distribution but does not oscillate on bipartite call graphs (a caller and its
 * callees), until the L1 change is below 1e-12.
 *
 * <p>Thread-safe: {@link #add} and {@link #snapshot} synchronise on this object; the power
 * iteration runs outside the lock.
 */
public final class CallRanking {

  /** Buckets per window. */
  public static final int BUCKETS = 10;
  /** Where operations beyond the limit are counted. */
  public static final Operation OVERFLOW = new Operation("_overflow", "_overflow");

  private static final double CONVERGED = 1e-12;
  private static final int MAX_ITERATIONS = 100_000;
  /**
   * How finely a row's duration quantiles are counted: 2 significant digits, a value within 1 %,
   * as the distributions by default.
   */
  private static final CountsIndex QUANTILE_LAYOUT = CountsIndex.forDigits(2);
  /** Up to this many distinct operations, a trace's edges are found through a table (3 KB). */
  private static final int MAX_EDGE_TABLE_OPERATIONS = 16;

  private final long bucketNanos;
  private final double epsilon;
  private final int maxOperations;
  /** By their id, the multiple of the bucket length they start at. */
  private final TreeMap<Long, Bucket> buckets = new TreeMap<>();
  private final Set<Operation> liveOperations = new HashSet<>();
  private long overflowSpans;
  /** {@link #add}'s table of the current trace's edges by (caller, callee) position. */
  private final StampedSlots<EdgeStats> edgeTable =
      new StampedSlots<>(MAX_EDGE_TABLE_OPERATIONS * MAX_EDGE_TABLE_OPERATIONS);

  public CallRanking(Duration window, double epsilon, int maxOperations) {
    if (window.isNegative() || window.isZero()) {
      throw new IllegalArgumentException("window must be positive, was " + window);
    }
    if (!(epsilon > 0 && epsilon < 1)) {
      throw new IllegalArgumentException("epsilon must be in (0, 1), was " + epsilon);
    }
    if (maxOperations < 1) {
      throw new IllegalArgumentException("maxOperations must be at least 1, was " + maxOperations);
    }
    this.bucketNanos = Math.max(1, window.toNanos() / BUCKETS);
    this.epsilon = epsilon;
    this.maxOperations = maxOperations;
  }

  /**
   * Adds an analysed trace that arrived at {@code arrivalNanos} (of the same clock as {@link
   * #snapshot}).
   */
  public synchronized void add(List<SpanRecord> spans, TraceProfile profile, long arrivalNanos) {
    add(spans, profile, false, arrivalNanos);
  }

  /**
   * Adds a late fragment of a trace analysed before (semantics.md §2): its spans, as {@link #add}
   * does, but no trace of its own.
   */
  public synchronized void addLateFragment(List<SpanRecord> spans, TraceProfile profile,
      long arrivalNanos) {
    add(spans, profile, true, arrivalNanos);
  }

  private void add(List<SpanRecord> spans, TraceProfile profile, boolean lateFragment,
      long arrivalNanos) {
    Bucket bucket = bucketOf(arrivalNanos);
    if (bucket == null) {
      return;
    }
    // Each of the trace's operations admitted and looked up once, in order of first appearance
    // (the order spans would admit them in).
    List<Operation> distinct = profile.distinctOperations();
    boolean whole = !lateFragment && profile.primaryRoot() >= 0;
    RootStats root = whole
        ? bucket.root(admit(distinct.get(profile.spans().get(profile.primaryRoot()).operation())))
        : bucket.fragments;
    Operation[] admitted = new Operation[distinct.size()];
    OperationStats[] stats = new OperationStats[distinct.size()];
    for (int o = 0; o < admitted.length; o++) {
      // An operation already under this root in the current bucket is live: one lookup, not two.
      stats[o] = root.operations.get(distinct.get(o));
      if (stats[o] != null) {
        admitted[o] = distinct.get(o);
      } else {
        admitted[o] = admit(distinct.get(o));
        stats[o] = root.operation(admitted[o]);
      }
    }
    // A trace's edges repeat (a handler calling the same client many times): each distinct one
    // is looked up once, through a table by (caller, callee) position, when the trace has few
    // enough operations for the table.
    int distinctCount = admitted.length;
    StampedSlots<EdgeStats> traceEdges = null;
    if (distinctCount <= MAX_EDGE_TABLE_OPERATIONS) {
      traceEdges = edgeTable;
      traceEdges.clear();
    }
    for (int i = 0; i < spans.size(); i++) {
      SpanProfile result = profile.spans().get(i);
      int o = result.operation();
      if (admitted[o] != distinct.get(o)) {
        overflowSpans++;
      }
      SpanRecord span = spans.get(i);
      long duration = span.durationNanos();
      stats[o].add(duration, result.selfTimeNs(), span.status() == SpanStatus.ERROR);
      if (result.parentIndex() >= 0) {
        int caller = profile.spans().get(result.parentIndex()).operation();
        EdgeStats edge;
        if (traceEdges == null) {
          edge = stats[caller].call(admitted[o]);
        } else {
          int slot = caller * distinctCount + o;
          edge = traceEdges.get(slot);
          if (edge == null) {
            edge = stats[caller].call(admitted[o]);
            traceEdges.set(slot, edge);
          }
        }
        edge.add(duration);
      }
    }
    if (whole) {
      root.durationNanos += profile.criticalPathNs();
      long[] path = PathTimes.byOperation(profile);
      for (int o = 0; o < path.length; o++) {
        stats[o].criticalNanos += path[o];
      }
    }
  }

  /** The length of a slice of the window: its states merge with others of the same. */
  public long sliceNanos() {
    return bucketNanos;
  }

  /** Spans counted under {@link #OVERFLOW} since start because the operation limit was reached. */
  public synchronized long overflowSpans() {
    return overflowSpans;
  }

  /** The ranking over the window ending at {@code nowNanos}, over all its traces. */
  public RankingSnapshot snapshot(long nowNanos) {
    return snapshot(nowNanos, null);
  }

  /**
   * The ranking over the traces of the window ending at {@code nowNanos} whose primary root is of
   * operation {@code root}; null: over all of them, late fragments included.
   */
  public RankingSnapshot snapshot(long nowNanos, Operation root) {
    Map<Operation, OperationStats> operations = new HashMap<>();
    Map<Edge, EdgeStats> edges = new HashMap<>();
    long durationNanos = 0;
    synchronized (this) {
      expire(nowNanos);
      for (Bucket bucket : buckets.values()) {
        for (Map.Entry<Operation, RootStats> entry : bucket.roots.entrySet()) {
          if (root == null || root.equals(entry.getKey())) {
            entry.getValue().mergeInto(operations, edges);
            durationNanos += entry.getValue().durationNanos;
          }
        }
        if (root == null) {
          bucket.fragments.mergeInto(operations, edges);
        }
      }
    }
    List<Operation> nodes = new ArrayList<>(operations.keySet());
    nodes.sort(Comparator.comparing(Operation::service).thenComparing(Operation::name));
    double[] involvement = stationary(nodes, edges);

    List<RankingSnapshot.Row> rows = new ArrayList<>(nodes.size());
    for (int v = 0; v < nodes.size(); v++) {
      OperationStats stats = operations.get(nodes.get(v));
      rows.add(new RankingSnapshot.Row(nodes.get(v), involvement[v], 0, stats.count,
          stats.errors, stats.duration.mean(), stats.duration.min, stats.duration.max,
          stats.duration.stddev(),
          stats.durations.valueAtPercentile(50, QUANTILE_LAYOUT, stats.duration.max),
          stats.durations.valueAtPercentile(99, QUANTILE_LAYOUT, stats.duration.max),
          stats.self.mean(), stats.self.min, stats.self.max,
          stats.self.stddev(), Math.round(stats.self.sum), stats.criticalNanos,
          durationNanos == 0 ? 0 : (double) stats.criticalNanos / durationNanos,
          false, false));
    }
    List<RankingSnapshot.EdgeRow> edgeRows = new ArrayList<>(edges.size());
    edges.forEach((edge, stats) -> edgeRows.add(new RankingSnapshot.EdgeRow(
        edge.caller(), edge.callee(), stats.count, stats.sum / stats.count, stats.max)));
    return RankingSnapshot.of(rows, edgeRows);
  }

  /**
   * The additive state of the window ending at {@code nowNanos}: of the traces whose primary root
   * is {@code root}, or with null of all of them and the late fragments.
   */
  public synchronized RankingState state(long nowNanos, Operation root) {
    expire(nowNanos);
    List<RankingState.Slice> slices = new ArrayList<>(buckets.size());
    buckets.forEach((id, bucket) -> {
      List<RankingState.RootSums> roots = new ArrayList<>();
      bucket.roots.forEach((operation, stats) -> {
        if (root == null || root.equals(operation)) {
          roots.add(stats.state(operation));
        }
      });
      RankingState.RootSums fragments = root == null && !bucket.fragments.operations.isEmpty()
          ? bucket.fragments.state(null) : null;
      if (!roots.isEmpty() || fragments != null) {
        slices.add(new RankingState.Slice(id, roots, fragments));
      }
    });
    return new RankingState(bucketNanos, slices);
  }

  /**
   * As {@link #state}, its slices added up into one, the newest: what a fleet's window needs of a
   * replica, a tenth of the bytes of every slice apart.
   */
  public RankingState summedState(long nowNanos, Operation root) {
    RankingState slices = state(nowNanos, root);
    if (slices.slices().size() < 2) {
      return slices;
    }
    long newest = slices.slices().get(slices.slices().size() - 1).id();
    CallRanking sum = new CallRanking(Duration.ofNanos(bucketNanos * BUCKETS), epsilon,
        Integer.MAX_VALUE);
    sum.merge(new RankingState(bucketNanos, slices.slices().stream()
        .map(slice -> new RankingState.Slice(newest, slice.roots(), slice.fragments()))
        .toList()));
    return sum.state(nowNanos, root);
  }

  /**
   * Adds another ranking's state (another replica's) to this one, slice by slice: the figures
   * then cover the traces of both. Its operations are taken as they are, beyond any limit.
   *
   * @throws IllegalArgumentException when its slices are of another length
   */
  public synchronized void merge(RankingState state) {
    if (state.sliceNanos() != bucketNanos) {
      throw new IllegalArgumentException("slices of " + state.sliceNanos() + " ns, not "
          + bucketNanos + " ns: the replicas' spanprof.ranking.window differ");
    }
    for (RankingState.Slice slice : state.slices()) {
      Bucket bucket = buckets.computeIfAbsent(slice.id(), unused -> new Bucket());
      for (RankingState.RootSums root : slice.roots()) {
        bucket.root(root.root()).merge(root);
      }
      if (slice.fragments() != null) {
        bucket.fragments.merge(slice.fragments());
      }
    }
  }

  /** π of P' by the lazy power iteration, warm-started at the ε → 0 limit (see the class doc). */
  private double[] stationary(List<Operation> nodes, Map<Edge, EdgeStats> edges) {
    int n = nodes.size();
    double[] pi = new double[n];
    if (n == 0) {
      return pi;
    }
    Map<Operation, Integer> index = new HashMap<>();
    for (int v = 0; v < n; v++) {
      index.put(nodes.get(v), v);
    }
    // Symmetric weights: a call a→b and its return b→a, each counted.
    List<Map<Integer, Double>> weights = new ArrayList<>(n);
    for (int v = 0; v < n; v++) {
      weights.add(new HashMap<>());
    }
    int[] group = new int[n];
    for (int v = 0; v < n; v++) {
      group[v] = v;
    }
    edges.forEach((edge, stats) -> {
      int a = index.get(edge.caller());
      int b = index.get(edge.callee());
      weights.get(a).merge(b, (double) stats.count, Double::sum);
      weights.get(b).merge(a, (double) stats.count, Double::sum);
      union(group, a, b);
    });
    double[] degree = new double[n];
    int[][] neighbours = new int[n][];
    double[][] probabilities = new double[n][];
    for (int v = 0; v < n; v++) {
      Map<Integer, Double> row = weights.get(v);
      degree[v] = row.values().stream().mapToDouble(Double::doubleValue).sum();
      neighbours[v] = new int[row.size()];
      probabilities[v] = new double[row.size()];
      int k = 0;
      for (Map.Entry<Integer, Double> entry : row.entrySet()) {
        neighbours[v][k] = entry.getKey();
        probabilities[v][k] = entry.getValue() / degree[v];
        k++;
      }
    }
    // The ε → 0 limit: each group gets its share of the uniform jump, split by degree.
    Map<Integer, Integer> groupSize = new HashMap<>();
    Map<Integer, Double> groupVolume = new HashMap<>();
    for (int v = 0; v < n; v++) {
      int g = find(group, v);
      groupSize.merge(g, 1, Integer::sum);
      groupVolume.merge(g, degree[v], Double::sum);
    }
    for (int v = 0; v < n; v++) {
      int g = find(group, v);
      double volume = groupVolume.get(g);
      pi[v] = volume == 0 ? 1.0 / n : (double) groupSize.get(g) / n * degree[v] / volume;
    }
    normalise(pi);

    double[] next = new double[n];
    for (int iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
      double dangling = 0;
      for (int v = 0; v < n; v++) {
        if (degree[v] == 0) {
          dangling += pi[v];
        }
      }
      double base = epsilon / n + (1 - epsilon) * dangling / n;
      Arrays.fill(next, base);
      for (int v = 0; v < n; v++) {
        double mass = (1 - epsilon) * pi[v];
        for (int k = 0; k < neighbours[v].length; k++) {
          next[neighbours[v][k]] += mass * probabilities[v][k];
        }
      }
      double change = 0;
      for (int v = 0; v < n; v++) {
        double lazy = 0.5 * (pi[v] + next[v]);
        change += Math.abs(lazy - pi[v]);
        pi[v] = lazy;
      }
      if (change < CONVERGED) {
        break;
      }
    }
    normalise(pi);
    return pi;
  }

  private static void normalise(double[] values) {
    double sum = 0;
    for (double value : values) {
      sum += value;
    }
    for (int i = 0; i < values.length; i++) {
      values[i] /= sum;
    }
  }

  private static int find(int[] group, int v) {
    while (group[v] != v) {
      group[v] = group[group[v]];
      v = group[v];
    }
    return v;
  }

  private static void union(int[] group, int a, int b) {
    group[find(group, a)] = find(group, b);
  }

  /** The operation itself when live or admitted now, else {@link #OVERFLOW} (limit reached). */
  private Operation admit(Operation operation) {
    if (liveOperations.contains(operation)) {
      return operation;
    }
    if (liveOperations.size() >= maxOperations) {
      liveOperations.add(OVERFLOW);
      return OVERFLOW;
    }
    liveOperations.add(operation);
    return operation;
  }

  /** The bucket of {@code arrivalNanos}, made when new; null when it has left the window. */
  private Bucket bucketOf(long arrivalNanos) {
    expire(arrivalNanos);
    long id = Math.floorDiv(arrivalNanos, bucketNanos);
    if (!buckets.isEmpty() && id <= buckets.lastKey() - BUCKETS) {
      return null;
    }
    return buckets.computeIfAbsent(id, unused -> new Bucket());
  }

  /**
   * Drops buckets that left the window ending at {@code nowNanos}; the operation limit then
   * counts only what is left.
   */
  private void expire(long nowNanos) {
    long oldestLive = Math.floorDiv(nowNanos, bucketNanos) - BUCKETS + 1;
    boolean dropped = false;
    while (!buckets.isEmpty() && buckets.firstKey() < oldestLive) {
      buckets.pollFirstEntry();
      dropped = true;
    }
    if (dropped) {
      liveOperations.clear();
      for (Bucket bucket : buckets.values()) {
        bucket.roots.forEach((root, stats) -> {
          liveOperations.add(root);
          liveOperations.addAll(stats.operations.keySet());
        });
        liveOperations.addAll(bucket.fragments.operations.keySet());
      }
    }
  }

  private record Edge(Operation caller, Operation callee) {}

  private static final class Bucket {
    /** By the operation of the traces' primary roots. */
    final Map<Operation, RootStats> roots = new HashMap<>();
    /** Late fragments: their spans, under no root. */
    final RootStats fragments = new RootStats();

    RootStats root(Operation operation) {
      return roots.computeIfAbsent(operation, unused -> new RootStats());
    }
  }

  /** The figures of the traces of one root operation: per operation, and Σ D. */
  private static final class RootStats {
    final Map<Operation, OperationStats> operations = new HashMap<>();
    long durationNanos;

    OperationStats operation(Operation operation) {
      return operations.computeIfAbsent(operation, unused -> new OperationStats());
    }

    RankingState.RootSums state(Operation root) {
      List<RankingState.OperationSums> sums = new ArrayList<>(operations.size());
      operations.forEach((operation, stats) -> sums.add(stats.state(operation)));
      return new RankingState.RootSums(root, durationNanos, sums);
    }

    void merge(RankingState.RootSums state) {
      durationNanos += state.durationNanos();
      for (RankingState.OperationSums sums : state.operations()) {
        operation(sums.operation()).merge(sums);
      }
    }

    void mergeInto(Map<Operation, OperationStats> operations, Map<Edge, EdgeStats> edges) {
      this.operations.forEach((caller, stats) -> {
        operations.computeIfAbsent(caller, unused -> new OperationStats()).merge(stats);
        stats.calls.forEach((callee, call) ->
            edges.computeIfAbsent(new Edge(caller, callee), unused -> new EdgeStats()).merge(call));
      });
    }
  }

  /** Count, sum, sum of squares, min and max of one quantity: mergeable moments. */
  private static final class Moments {
    long count;
    double sum;
    double sumOfSquares;
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;

    void add(long value) {
      count++;
      sum += value;
      sumOfSquares += (double) value * value;
      min = Math.min(min, value);
      max = Math.max(max, value);
    }

    void merge(Moments other) {
      count += other.count;
      sum += other.sum;
      sumOfSquares += other.sumOfSquares;
      min = Math.min(min, other.min);
      max = Math.max(max, other.max);
    }

    RankingState.Moments state() {
      return new RankingState.Moments(sum, sumOfSquares, min, max);
    }

    /** Adds the moments of {@code count} more values. */
    void merge(long count, RankingState.Moments state) {
      this.count += count;
      sum += state.sum();
      sumOfSquares += state.sumOfSquares();
      min = Math.min(min, state.min());
      max = Math.max(max, state.max());
    }

    double mean() {
      return count == 0 ? 0 : sum / count;
    }

    /** Population standard deviation. */
    double stddev() {
      if (count == 0) {
        return 0;
      }
      double mean = mean();
      return Math.sqrt(Math.max(0, sumOfSquares / count - mean * mean));
    }
  }

  /**
   * An operation's figures, and in a bucket also its calls by callee. The calls are kept with
   * their caller, whose figures a trace updates anyway, rather than in one map by (caller, callee):
   * finding a call then touches fewer objects, which are mostly out of the core's caches when a
   * trace comes to be analysed ({@code PipelineBenchmark} from memory).
   */
  private static final class OperationStats {
    long count;
    long errors;
    final Moments duration = new Moments();
    final SparseCounts durations = new SparseCounts();
    final Moments self = new Moments();
    long criticalNanos;
    final Map<Operation, EdgeStats> calls = new HashMap<>();

    EdgeStats call(Operation callee) {
      return calls.computeIfAbsent(callee, unused -> new EdgeStats());
    }

    void add(long durationNanos, long selfNanos, boolean error) {
      count++;
      errors += error ? 1 : 0;
      duration.add(durationNanos);
      durations.add(QUANTILE_LAYOUT.of(durationNanos), 1);
      self.add(selfNanos);
    }

    RankingState.OperationSums state(Operation operation) {
      List<RankingState.CallSums> callSums = new ArrayList<>(calls.size());
      calls.forEach((callee, call) ->
          callSums.add(new RankingState.CallSums(callee, call.count, call.sum, call.max)));
      return new RankingState.OperationSums(operation, count, errors, duration.state(),
          self.state(), criticalNanos, durations.indexes(), durations.counts(), callSums);
    }

    void merge(RankingState.OperationSums state) {
      count += state.count();
      errors += state.errors();
      duration.merge(state.count(), state.duration());
      self.merge(state.count(), state.selfTime());
      criticalNanos += state.criticalPathNanos();
      for (int i = 0; i < state.durationIndexes().length; i++) {
        durations.add(state.durationIndexes()[i], state.durationCounts()[i]);
      }
      for (RankingState.CallSums call : state.calls()) {
        EdgeStats edge = call(call.callee());
        edge.count += call.count();
        edge.sum += call.sumNanos();
        edge.max = Math.max(edge.max, call.maxNanos());
      }
    }

    void merge(OperationStats other) {
      count += other.count;
      errors += other.errors;
      duration.merge(other.duration);
      other.durations.addTo(durations);
      self.merge(other.self);
      criticalNanos += other.criticalNanos;
    }
  }

  private static final class EdgeStats {
    long count;
    double sum;
    long max = Long.MIN_VALUE;

    void add(long calleeDurationNanos) {
      count++;
      sum += calleeDurationNanos;
      max = Math.max(max, calleeDurationNanos);
    }

    void merge(EdgeStats other) {
      count += other.count;
      sum += other.sum;
      max = Math.max(max, other.max);
    }
  }
}
