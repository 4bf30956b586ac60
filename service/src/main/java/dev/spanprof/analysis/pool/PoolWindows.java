package dev.spanprof.analysis.pool;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Utilization and CPU attribution of pools with a configured capacity, continuously, in fixed
 * time windows (the windowed form of semantics.md §3).
 *
 * <p>Every analysed trace contributes its chosen-span segments on those pools to the windows they
 * fall in (by span time). Segments of different traces that overlap on one pool are summed in
 * the window's {@link PoolSweep} before anything is computed, so the figures account for them
 * together, as one timeline. A window is final once the clock has passed its end by the
 * lateness: only then is it swept, published and kept among the recent windows. Segments that
 * arrive for a final window are counted as late and left out.
 *
 * <p>Memory: at most {@code maxPools} pools (segments of further pools are counted and dropped),
 * each with its open windows and {@code recentWindows} final ones. Only windows that received
 * segments are published: a configured pool that saw no spans has nothing to report.
 *
 * <p>Thread-safe: every method synchronises on this object ({@link #add} only when it is given
 * segments).
 */
public final class PoolWindows {

  private static final int MAX_CACHED_POOL_IDS = 10_000;

  private final Map<String, Double> exactCapacities = new HashMap<>();
  private final Map<Pattern, Double> globCapacities = new LinkedHashMap<>();
  private final Map<String, Double> capacityCache = new HashMap<>();
  private final long windowNanos;
  private final long latenessNanos;
  private final int maxPools;
  private final int recentWindows;
  private final Map<String, Pool> pools = new TreeMap<>();
  private long lateSegments;
  private long droppedSegments;

  /**
   * @param capacities capacity R per pool id; a key with {@code *} (any characters) or {@code ?}
   *     (one character) is a glob, tried in order after the exact ids
   */
  public PoolWindows(Map<String, Double> capacities, Duration window, Duration lateness,
      int maxPools, int recentWindows) {
    capacities.forEach((pool, capacity) -> {
      if (!(capacity > 0) || Double.isInfinite(capacity)) {
        throw new IllegalArgumentException(
            "capacity of pool '" + pool + "' must be a positive number, was " + capacity);
      }
      if (pool.contains("*") || pool.contains("?")) {
        globCapacities.put(glob(pool), capacity);
      } else {
        exactCapacities.put(pool, capacity);
      }
    });
    if (window.isNegative() || window.isZero()) {
      throw new IllegalArgumentException("window must be positive, was " + window);
    }
    this.windowNanos = window.toNanos();
    this.latenessNanos = lateness.toNanos();
    this.maxPools = maxPools;
    this.recentWindows = recentWindows;
  }

  /** One final window of one pool. Times are Unix epoch nanoseconds, like span times. */
  public record PoolWindow(String pool, long startNanos, long endNanos, PoolSweep.Figures figures) {}

  public void add(List<ChosenSegment> segments) {
    // An analyzer told that no pool has a capacity keeps no segments (TraceAnalyzer): its traces
    // do not take the lock that all analysing threads share.
    if (segments.isEmpty()) {
      return;
    }
    synchronized (this) {
      addSegments(segments);
    }
  }

  private void addSegments(List<ChosenSegment> segments) {
    for (ChosenSegment segment : segments) {
      double capacity = capacity(segment.pool());
      if (Double.isNaN(capacity) || segment.toNanos() <= segment.fromNanos()) {
        continue;
      }
      Pool pool = pools.get(segment.pool());
      if (pool == null) {
        if (pools.size() >= maxPools) {
          droppedSegments++;
          continue;
        }
        pool = new Pool();
        pools.put(segment.pool(), pool);
      }
      long first = Math.floorDiv(segment.fromNanos(), windowNanos);
      long last = Math.floorDiv(segment.toNanos() - 1, windowNanos);
      for (long w = first; w <= last; w++) {
        if (w <= pool.lastFinal) {
          lateSegments++;
          continue;
        }
        long from = Math.max(segment.fromNanos(), w * windowNanos);
        long to = Math.min(segment.toNanos(), (w + 1) * windowNanos);
        pool.open.computeIfAbsent(w, unused -> new PoolSweep(capacity))
            .add(segment.state(), segment.stateClass(), segment.category(), segment.cores(), from, to);
      }
    }
  }

  /** Finalizes every window whose end is at least the lateness before {@code nowNanos}. */
  public synchronized List<PoolWindow> finalizeDue(long nowNanos) {
    List<PoolWindow> finals = new ArrayList<>();
    for (Map.Entry<String, Pool> entry : pools.entrySet()) {
      Pool pool = entry.getValue();
      Iterator<Map.Entry<Long, PoolSweep>> open = pool.open.entrySet().iterator();
      while (open.hasNext()) {
        Map.Entry<Long, PoolSweep> window = open.next();
        long start = window.getKey() * windowNanos;
        long end = start + windowNanos;
        if (end > nowNanos - latenessNanos) {
          break; // windows are in time order: the rest are younger
        }
        PoolWindow done = new PoolWindow(entry.getKey(), start, end, window.getValue().finish(start, end));
        open.remove();
        pool.lastFinal = Math.max(pool.lastFinal, window.getKey());
        pool.recent.addLast(done);
        if (pool.recent.size() > recentWindows) {
          pool.recent.removeFirst();
        }
        finals.add(done);
      }
    }
    return finals;
  }

  /** The recent final windows of every pool, oldest first. */
  public synchronized Map<String, List<PoolWindow>> recent() {
    Map<String, List<PoolWindow>> recent = new TreeMap<>();
    pools.forEach((name, pool) -> recent.put(name, List.copyOf(pool.recent)));
    return recent;
  }

  /** Segments that arrived for windows already final. */
  public synchronized long lateSegments() {
    return lateSegments;
  }

  /** Segments of pools beyond the pool limit. */
  public synchronized long droppedSegments() {
    return droppedSegments;
  }

  /** The configured capacity of {@code pool}, or NaN when it has none; under the lock. */
  private double capacity(String pool) {
    Double cached = capacityCache.get(pool);
    if (cached != null) {
      return cached;
    }
    Double capacity = exactCapacities.get(pool);
    if (capacity == null) {
      for (Map.Entry<Pattern, Double> glob : globCapacities.entrySet()) {
        if (glob.getKey().matcher(pool).matches()) {
          capacity = glob.getValue();
          break;
        }
      }
    }
    if (capacityCache.size() >= MAX_CACHED_POOL_IDS) {
      capacityCache.clear();
    }
    double result = capacity == null ? Double.NaN : capacity;
    capacityCache.put(pool, result);
    return result;
  }

  private static Pattern glob(String glob) {
    StringBuilder regex = new StringBuilder();
    for (char c : glob.toCharArray()) {
      switch (c) {
        case '*' -> regex.append(".*");
        case '?' -> regex.append('.');
        default -> regex.append(Pattern.quote(String.valueOf(c)));
      }
    }
    return Pattern.compile(regex.toString());
  }

  private static final class Pool {
    final TreeMap<Long, PoolSweep> open = new TreeMap<>();
    final ArrayDeque<PoolWindow> recent = new ArrayDeque<>();
    long lastFinal = Long.MIN_VALUE;
  }
}
