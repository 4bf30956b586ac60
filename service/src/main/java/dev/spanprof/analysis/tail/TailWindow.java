package dev.spanprof.analysis.tail;

import dev.spanprof.analysis.trace.PathTimes;
import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.span.Operation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Why slow traces are slow, semantics.md §6, over a sliding window of analysed traces: per root
 * operation, its traces' primary-root durations D in buckets of 5 % relative width, and in each
 * bucket exact sums of D and of the critical-path time per operation and per state. Any quantile
 * q then picks its bucket, θ its lower bound, and the slow set S is every bucket from there up:
 * all figures are sums over buckets, exact but for θ.
 *
 * <p><b>Window.</b> As the ranking's: a trace goes into the slice of its arrival, slices cut at
 * multiples of their length (on the epoch clock the same on every replica, semantics.md §7), and
 * the window is {@value #SLICES} slices, so data ages out a tenth of a window at a time.
 *
 * <p><b>Bounds.</b> At most {@code maxRoots} root operations: a trace of another root is counted
 * in {@link #overflowTraces()} and left out. Per root at most {@code maxRows} operations and as
 * many states: the time of any further one is summed under {@link #OVERFLOW} (counted in
 * {@link #overflowRows()}), so the excesses still add up. A root takes about 8 bytes × (its
 * operations + states) per occupied duration bucket per slice.
 *
 * <p>Thread-safe: every method synchronises on this object.
 */
public final class TailWindow {

  /** Slices per window. */
  public static final int SLICES = 10;
  /** The row that states beyond a root's limit are summed under. */
  public static final String OVERFLOW = "_overflow";
  /** The row that operations beyond a root's limit are summed under. */
  public static final Operation OVERFLOW_OPERATION = new Operation(OVERFLOW, OVERFLOW);

  private final long sliceNanos;
  private final int maxRoots;
  private final int maxRows;
  private final Map<Operation, RootTail> roots = new HashMap<>();
  private long overflowTraces;
  private long overflowRows;
  /** The newest slice a trace was added to; none yet: {@code Long.MIN_VALUE}. */
  private long newestSlice = Long.MIN_VALUE;

  public TailWindow(Duration window, int maxRoots, int maxRows) {
    if (window.isNegative() || window.isZero()) {
      throw new IllegalArgumentException("window must be positive, was " + window);
    }
    if (maxRoots < 1 || maxRows < 1) {
      throw new IllegalArgumentException(
          "maxRoots and maxRows must be at least 1, were " + maxRoots + " and " + maxRows);
    }
    this.sliceNanos = Math.max(1, window.toNanos() / SLICES);
    this.maxRoots = maxRoots;
    this.maxRows = maxRows;
  }

  /**
   * Adds an analysed trace to the slice of its arrival, {@code arrivalNanos}; a trace without a
   * root, or whose slice has left the window, adds nothing.
   */
  public synchronized void add(TraceProfile profile, long arrivalNanos) {
    int primaryRoot = profile.primaryRoot();
    long slice = Math.floorDiv(arrivalNanos, sliceNanos);
    newestSlice = Math.max(newestSlice, slice);
    if (primaryRoot < 0 || slice <= newestSlice - SLICES) {
      return;
    }
    Operation root =
        profile.distinctOperations().get(profile.spans().get(primaryRoot).operation());
    RootTail tail = roots.get(root);
    if (tail == null) {
      if (roots.size() >= maxRoots) {
        expire(arrivalNanos);
      }
      if (roots.size() >= maxRoots) {
        overflowTraces++;
        return;
      }
      tail = new RootTail();
      roots.put(root, tail);
    }
    tail.add(profile, PathTimes.of(profile), slice);
  }

  /** Every root operation with traces in the window, with its count and duration quantiles. */
  public synchronized List<TailRoot> roots(long nowNanos) {
    expire(nowNanos);
    List<TailRoot> rows = new ArrayList<>();
    roots.forEach((root, tail) -> {
      TreeMap<Integer, BucketSums> buckets = tail.merged();
      long count = count(buckets);
      rows.add(new TailRoot(root, count, theta(buckets, count, 0.5), theta(buckets, count, 0.9),
          theta(buckets, count, 0.99)));
    });
    rows.sort((a, b) -> Long.compare(b.traces(), a.traces()));
    return rows;
  }

  /** The breakdown of {@code root}'s tail at quantile q in (0, 1); empty without its traces. */
  public synchronized Optional<TailBreakdown> breakdown(Operation root, double quantile,
      long nowNanos) {
    if (!(quantile > 0 && quantile < 1)) {
      throw new IllegalArgumentException("quantile must be in (0, 1), was " + quantile);
    }
    expire(nowNanos);
    RootTail tail = roots.get(root);
    if (tail == null) {
      return Optional.empty();
    }
    TreeMap<Integer, BucketSums> buckets = tail.merged();
    long all = count(buckets);
    int thetaBucket = quantileBucket(buckets, all, quantile);
    BucketSums slowSums = new BucketSums();
    BucketSums allSums = new BucketSums();
    buckets.forEach((bucket, sums) -> {
      allSums.addAll(sums);
      if (bucket >= thetaBucket) {
        slowSums.addAll(sums);
      }
    });
    return Optional.of(new TailBreakdown(root, quantile, DurationBuckets.lowerBound(thetaBucket),
        slowSums.count, allSums.count, slowSums.mean(slowSums.durationNs),
        allSums.mean(allSums.durationNs),
        rows(tail.operations.keys, slowSums, allSums, slowSums.operationNs, allSums.operationNs),
        rows(tail.states.keys, slowSums, allSums, slowSums.stateNs, allSums.stateNs)));
  }

  /**
   * The additive state of the window ending at {@code nowNanos}: of {@code root}'s traces, or with
   * null of every root's.
   */
  public synchronized TailState state(long nowNanos, Operation root) {
    expire(nowNanos);
    List<TailState.RootState> states = new ArrayList<>();
    roots.forEach((operation, tail) -> {
      if (root == null || root.equals(operation)) {
        states.add(tail.state(operation));
      }
    });
    return new TailState(sliceNanos, states);
  }

  /**
   * As {@link #state}, each root's slices added up into one, the newest: what a fleet's window
   * needs of a replica, a tenth of the bytes of every slice apart.
   */
  public TailState summedState(long nowNanos, Operation root) {
    TailState slices = state(nowNanos, root);
    TailWindow sum = new TailWindow(Duration.ofNanos(sliceNanos * SLICES), Integer.MAX_VALUE,
        Integer.MAX_VALUE);
    sum.merge(new TailState(sliceNanos, slices.roots().stream()
        .map(tail -> {
          long newest = tail.slices().stream().mapToLong(TailState.Slice::id).max().orElse(0);
          return new TailState.RootState(tail.root(), tail.operations(), tail.states(),
              tail.slices().stream().map(slice -> new TailState.Slice(newest, slice.buckets()))
                  .toList());
        })
        .toList()));
    return sum.state(nowNanos, root);
  }

  /**
   * Adds another window's state (another replica's) to this one, slice by slice: the figures then
   * cover the traces of both. Its roots and rows are taken up to this window's limits.
   *
   * @throws IllegalArgumentException when its slices are of another length
   */
  public synchronized void merge(TailState state) {
    if (state.sliceNanos() != sliceNanos) {
      throw new IllegalArgumentException("slices of " + state.sliceNanos() + " ns, not "
          + sliceNanos + " ns: the replicas' spanprof.tail.window differ");
    }
    for (TailState.RootState root : state.roots()) {
      RootTail tail = roots.get(root.root());
      if (tail == null) {
        if (roots.size() >= maxRoots) {
          overflowTraces += root.slices().stream().flatMap(slice -> slice.buckets().stream())
              .mapToLong(TailState.Bucket::count).sum();
          continue;
        }
        tail = new RootTail();
        roots.put(root.root(), tail);
      }
      tail.merge(root);
      for (TailState.Slice slice : root.slices()) {
        newestSlice = Math.max(newestSlice, slice.id());
      }
    }
  }

  /** The length of a slice of the window: its states merge with others of the same. */
  public long sliceNanos() {
    return sliceNanos;
  }

  /** Traces left out because their root was beyond the limit of roots. */
  public synchronized long overflowTraces() {
    return overflowTraces;
  }

  /** Times an operation or state of a trace was summed under {@link #OVERFLOW}. */
  public synchronized long overflowRows() {
    return overflowRows;
  }

  /** Per key, its means over S and A, excess and shares; largest excess first. */
  private static <K> List<TailBreakdown.Row<K>> rows(List<K> keys, BucketSums slow,
      BucketSums all, long[] slowNs, long[] allNs) {
    List<TailBreakdown.Row<K>> rows = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      long slowTotal = i < slowNs.length ? slowNs[i] : 0;
      long allTotal = i < allNs.length ? allNs[i] : 0;
      if (allTotal == 0) {
        continue;
      }
      double meanSlow = slow.mean(slowTotal);
      double meanAll = all.mean(allTotal);
      rows.add(new TailBreakdown.Row<>(keys.get(i), meanSlow, meanAll, meanSlow - meanAll,
          slow.durationNs == 0 ? 0 : (double) slowTotal / slow.durationNs,
          (double) allTotal / all.durationNs));
    }
    rows.sort((a, b) -> Double.compare(b.excessNs(), a.excessNs()));
    return rows;
  }

  private static long count(TreeMap<Integer, BucketSums> buckets) {
    long count = 0;
    for (BucketSums sums : buckets.values()) {
      count += sums.count;
    }
    return count;
  }

  private static long theta(TreeMap<Integer, BucketSums> buckets, long count, double quantile) {
    return DurationBuckets.lowerBound(quantileBucket(buckets, count, quantile));
  }

  /**
   * The bucket of the (⌊q·n⌋ + 1)-th smallest duration, the last at most: the first beyond the q
   * fraction. Where q·n is whole, the n·q-th and the next are both q-quantiles; the next one makes
   * S exactly the traces above the q fraction (with 10 % slow traces and q = 0.9, the slow ones)
   * where the other would also take in every trace of the largest fast one's bucket.
   */
  private static int quantileBucket(TreeMap<Integer, BucketSums> buckets, long count,
      double quantile) {
    long rank = Math.min(count, (long) Math.floor(quantile * count) + 1);
    long seen = 0;
    for (Map.Entry<Integer, BucketSums> entry : buckets.entrySet()) {
      seen += entry.getValue().count;
      if (seen >= rank) {
        return entry.getKey();
      }
    }
    return buckets.lastKey();
  }

  /** Drops slices that left the window, and roots left with none. */
  private void expire(long nowNanos) {
    long oldestLive = Math.floorDiv(nowNanos, sliceNanos) - SLICES + 1;
    for (Iterator<RootTail> it = roots.values().iterator(); it.hasNext(); ) {
      RootTail tail = it.next();
      while (!tail.slices.isEmpty() && tail.slices.firstKey() < oldestLive) {
        tail.slices.pollFirstEntry();
      }
      if (tail.slices.isEmpty()) {
        it.remove();
      }
    }
  }

  /** A root operation's names and slices. */
  private final class RootTail {
    final Rows<Operation> operations = new Rows<>(OVERFLOW_OPERATION);
    final Rows<String> states = new Rows<>(OVERFLOW);
    /** By their id, the multiple of the slice length they start at. */
    final TreeMap<Long, Slice> slices = new TreeMap<>();

    void add(TraceProfile profile, PathTimes times, long sliceId) {
      Slice slice = slices.computeIfAbsent(sliceId, unused -> new Slice());
      BucketSums sums = slice.buckets.computeIfAbsent(
          DurationBuckets.bucketOf(profile.criticalPathNs()), unused -> new BucketSums());
      sums.count++;
      sums.durationNs += profile.criticalPathNs();
      List<Operation> distinct = profile.distinctOperations();
      for (int o = 0; o < times.byOperation().length; o++) {
        if (times.byOperation()[o] > 0) {
          sums.operationNs =
              addAt(sums.operationNs, operations.row(distinct.get(o)), times.byOperation()[o]);
        }
      }
      times.byState().forEach((state, ns) ->
          sums.stateNs = addAt(sums.stateNs, states.row(state), ns));
    }

    TailState.RootState state(Operation root) {
      List<TailState.Slice> sliceStates = new ArrayList<>(slices.size());
      slices.forEach((id, slice) -> {
        List<TailState.Bucket> buckets = new ArrayList<>(slice.buckets.size());
        slice.buckets.forEach((bucket, sums) -> buckets.add(new TailState.Bucket(bucket,
            sums.count, sums.durationNs, sums.operationNs.clone(), sums.stateNs.clone())));
        sliceStates.add(new TailState.Slice(id, buckets));
      });
      return new TailState.RootState(root, List.copyOf(operations.keys),
          List.copyOf(states.keys), sliceStates);
    }

    /** Adds {@code state}'s sums, its rows mapped to this root's. */
    void merge(TailState.RootState state) {
      int[] operationRows = new int[state.operations().size()];
      for (int i = 0; i < operationRows.length; i++) {
        operationRows[i] = operations.row(state.operations().get(i));
      }
      int[] stateRows = new int[state.states().size()];
      for (int i = 0; i < stateRows.length; i++) {
        stateRows[i] = states.row(state.states().get(i));
      }
      for (TailState.Slice sliceState : state.slices()) {
        Slice slice = slices.computeIfAbsent(sliceState.id(), unused -> new Slice());
        for (TailState.Bucket bucket : sliceState.buckets()) {
          BucketSums sums =
              slice.buckets.computeIfAbsent(bucket.bucket(), unused -> new BucketSums());
          sums.count += bucket.count();
          sums.durationNs += bucket.durationNanos();
          for (int i = 0; i < bucket.operationNanos().length; i++) {
            sums.operationNs = addAt(sums.operationNs, operationRows[i], bucket.operationNanos()[i]);
          }
          for (int i = 0; i < bucket.stateNanos().length; i++) {
            sums.stateNs = addAt(sums.stateNs, stateRows[i], bucket.stateNanos()[i]);
          }
        }
      }
    }

    /** Every live slice's buckets summed. */
    TreeMap<Integer, BucketSums> merged() {
      TreeMap<Integer, BucketSums> merged = new TreeMap<>();
      for (Slice slice : slices.values()) {
        slice.buckets.forEach((bucket, sums) ->
            merged.computeIfAbsent(bucket, unused -> new BucketSums()).addAll(sums));
      }
      return merged;
    }
  }

  /**
   * A root's operations or states, each given a row once, in order of arrival; beyond the limit,
   * the overflow row.
   */
  private final class Rows<K> {
    final List<K> keys = new ArrayList<>();
    final Map<K, Integer> rows = new HashMap<>();
    private final K overflow;

    Rows(K overflow) {
      this.overflow = overflow;
    }

    int row(K key) {
      Integer row = rows.get(key);
      if (row != null) {
        return row;
      }
      if (keys.size() >= maxRows) {
        overflowRows++;
        key = overflow;
        row = rows.get(key);
        if (row != null) {
          return row;
        }
      }
      keys.add(key);
      rows.put(key, keys.size() - 1);
      return keys.size() - 1;
    }
  }

  private static final class Slice {
    /** By duration bucket. */
    final Map<Integer, BucketSums> buckets = new HashMap<>();
  }

  /** Count, Σ D and Σ critical-path time per row of the traces in one duration bucket. */
  private static final class BucketSums {
    long count;
    long durationNs;
    long[] operationNs = new long[0];
    long[] stateNs = new long[0];

    void addAll(BucketSums other) {
      count += other.count;
      durationNs += other.durationNs;
      for (int i = 0; i < other.operationNs.length; i++) {
        operationNs = addAt(operationNs, i, other.operationNs[i]);
      }
      for (int i = 0; i < other.stateNs.length; i++) {
        stateNs = addAt(stateNs, i, other.stateNs[i]);
      }
    }

    double mean(long totalNs) {
      return count == 0 ? 0 : (double) totalNs / count;
    }
  }

  /** {@code values} with {@code value} added at {@code index}, grown to hold it. */
  private static long[] addAt(long[] values, int index, long value) {
    long[] result = index < values.length ? values : Arrays.copyOf(values, index + 1);
    result[index] += value;
    return result;
  }
}
