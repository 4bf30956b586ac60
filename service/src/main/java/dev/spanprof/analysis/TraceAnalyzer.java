package dev.spanprof.analysis;

import dev.spanprof.analysis.TraceProfile.ChosenSegment;
import dev.spanprof.analysis.TraceProfile.OperationTime;
import dev.spanprof.analysis.TraceProfile.PoolUsage;
import dev.spanprof.analysis.TraceProfile.ResourceBusy;
import dev.spanprof.analysis.TraceProfile.ServicePoolStateTime;
import dev.spanprof.analysis.TraceProfile.SpanProfile;
import dev.spanprof.analysis.TraceProfile.StateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;

/**
 * Computes a {@link TraceProfile} from a trace's spans, exactly as semantics.md §1–3 define it.
 *
 * <p>Phases, each commented where it runs:
 * <ol>
 *   <li>map every span once: interval, resource, pool, state, category, cores, capacity; sort
 *       the spans once by start and once by end, the time orders every later phase takes;
 *   <li>build the span tree: first span of an id wins, orphans and parent cycles become roots;
 *   <li>per resource, one sweep over sorted boundaries picks the chosen span of every elementary
 *       segment, giving busy time, per-state and per-operation resource time and a state
 *       timeline;
 *   <li>one sweep over all resources' state timelines gives inclusive and exclusive state time;
 *   <li>self time from the union of each span's clipped children;
 *   <li>the critical path, walked iteratively from each root (no recursion: traces can be
 *       deep);
 *   <li>pool utilization and CPU attribution over each allocation span, from the chosen spans.
 * </ol>
 *
 * <p>Cost: O(n log n) for the sorts plus O(n·d) for walking same-resource ancestors, where d is
 * the nesting depth on one resource (a span's activation updates the counts of its ancestors on
 * its resource). {@link #countWork} lets the tests show it on 100 000-span traces.
 *
 * <p>Thread-safe: each call works on its own state, in arrays and name tables its thread reuses
 * from one analysis to the next ({@link ScratchArrays}); nothing of them reaches the profile.
 */
public final class TraceAnalyzer {

  /** Dominant state first: highest priority, ties by state name ascending. */
  private static final Comparator<StateDefinition> DOMINANCE =
      Comparator.comparingInt(StateDefinition::priority).reversed()
          .thenComparing(StateDefinition::name);

  // The order of the profile's pool rows. Written out rather than composed from
  // Comparator.comparing: a composed comparator calls its key extractors through lambdas shared
  // by every comparing() in the process, which the JIT cannot inline. (The state, resource and
  // operation rows are left in order of first appearance: only the JSON view orders them, when
  // a profile is asked for.)
  private static final Comparator<PoolUsage> BY_POOL_AND_START = (a, b) -> {
    int byPool = a.pool().compareTo(b.pool());
    return byPool != 0 ? byPool : Long.compare(a.startNanos(), b.startNanos());
  };

  /** Each analysing thread's reusable arrays and name tables. */
  private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

  private final SpanMapping mapping;
  private final boolean keepsSegments;

  /** An analyzer whose profiles carry their {@link TraceProfile#segments}. */
  public TraceAnalyzer(SpanMapping mapping) {
    this(mapping, true);
  }

  /**
   * @param keepsSegments whether profiles carry their {@link TraceProfile#segments}: only the
   *     pool windows read them, so without a pool capacity configured they would be built (two
   *     or so objects per span) for nobody
   */
  public TraceAnalyzer(SpanMapping mapping, boolean keepsSegments) {
    this.mapping = mapping;
    this.keepsSegments = keepsSegments;
  }

  public TraceProfile analyze(TraceId traceId, List<SpanRecord> spans) {
    return new Run(spans, mapping, SCRATCH.get()).profile(traceId, keepsSegments);
  }

  /**
   * Analyses and counts the elementary steps taken (sweep events, ancestor steps, segment
   * scans), so tests can check the cost grows as the algorithm says, without timing anything.
   */
  long countWork(TraceId traceId, List<SpanRecord> spans) {
    Run run = new Run(spans, mapping, SCRATCH.get());
    run.profile(traceId, keepsSegments);
    return run.work;
  }

  /**
   * The state of one analysis. Arrays are indexed by the span's position in the input list; they
   * come from the thread's scratch, so they may be longer than the trace: loops run to n, or to
   * the count of names, never to an array's length.
   */
  private static final class Run {
    private final SpanMapping mapping;
    private final int n;
    private final SpanRecord[] span;
    private final long[] start;
    private final long[] end;
    private final boolean[] allocation;
    private final double[] cores;
    private final double[] capacity;
    private final int[] resource;
    private final int[] pool;
    private final int[] state;
    private final int[] operation;
    private final int[] category;
    private final int[] service;
    private final Scratch scratch;
    private final ScratchArrays arrays;
    private final Names<String> resources;
    private final Names<String> pools;
    private final Names<String> states;
    private final Names<Operation> operations;
    private final Names<String> categories;
    private final Names<String> services;
    private final List<StateDefinition> stateDefinitions;
    /** Per state index, its place in the dominance order (0 dominates all). */
    private int[] stateRank;
    private int[] stateByRank;

    /**
     * Every span by start, and every span by end, ties by position. Sorted once: the phases that
     * need spans in time order take them from these, filtered, rather than sorting again.
     */
    private int[] byStart;
    private int[] byEnd;
    private int[] parent;
    private boolean[] inTree;
    /**
     * Span i's children are childrenByStart[childStart[i], childStart[i + 1]), by start; the
     * same range of childrenByEnd holds them by end.
     */
    private int[] childStart;
    private int[] childrenByStart;
    private int[] childrenByEnd;
    long work;
    private int primaryRoot = -1;

    // Resource timeline results.
    private long[] busy;
    /** Per span, how long it was its resource's chosen span. */
    private long[] chosenNs;
    private long[] stateResourceNs;
    private long[] operationResourceNs;
    private final Segments segments;
    /**
     * The same segments by their chosen span's state, adjacent equal ones merged: all the state
     * sweep needs is each state's union, and a resource's consecutive segments mostly share
     * their state, so it sorts a few runs per resource instead of every segment.
     */
    private final Segments stateRuns;
    /** Each span's interval clipped to its parent's walked part, set when the parent is walked. */
    private long[] clippedFrom;
    private long[] clippedTo;
    /** The walk's frames' eligible children, and the frames (see {@link #walk}). */
    private int[] walkChildren;
    private int[] walkStack;
    private int[] walkNext;
    private int[] walkEnd;
    private long[] walkCursor;
    /** Span ids with the sign bit flipped, so that signed order is the ids' unsigned order. */
    private long[] unsignedSpanIds;

    Run(List<SpanRecord> spans, SpanMapping mapping, Scratch scratch) {
      this.mapping = mapping;
      this.n = spans.size();
      this.span = spans.toArray(new SpanRecord[0]);
      scratch.clear();
      this.scratch = scratch;
      this.arrays = scratch.arrays;
      this.resources = scratch.resources;
      this.pools = scratch.pools;
      this.states = scratch.states;
      this.operations = scratch.operations;
      this.categories = scratch.categories;
      this.services = scratch.services;
      this.stateDefinitions = scratch.stateDefinitions;
      this.segments = scratch.segments;
      this.stateRuns = scratch.stateRuns;
      this.start = arrays.unclearedLongs(n);
      this.end = arrays.unclearedLongs(n);
      this.allocation = arrays.unclearedBooleans(n);
      this.cores = arrays.unclearedDoubles(n);
      this.capacity = arrays.unclearedDoubles(n);
      this.resource = arrays.unclearedInts(n);
      this.pool = arrays.unclearedInts(n);
      this.state = arrays.unclearedInts(n);
      this.operation = arrays.unclearedInts(n);
      this.category = arrays.unclearedInts(n);
      this.service = arrays.unclearedInts(n);
    }

    TraceProfile profile(TraceId traceId, boolean keepsSegments) {
      mapSpans();
      rankStates();
      sortByTime();
      buildTree();
      long spanTime = 0;
      long minStart = Long.MAX_VALUE;
      long maxEnd = Long.MIN_VALUE;
      for (int i = 0; i < n; i++) {
        if (!allocation[i]) {
          spanTime += end[i] - start[i];
          minStart = Math.min(minStart, start[i]);
          maxEnd = Math.max(maxEnd, end[i]);
        }
      }
      long ttc = minStart == Long.MAX_VALUE ? 0 : maxEnd - minStart;
      long ttx = unionOfActivity();
      sweepResources();
      long resourceTime = 0;
      for (int r = 0; r < resources.size(); r++) {
        resourceTime += busy[r];
      }
      long[][] inclusiveExclusive = sweepStates();
      long[] self = selfTimes();
      long[] critical = arrays.longs(n);
      boolean[] onPath = arrays.booleans(n);
      long criticalPath = criticalPath(critical, onPath);
      List<PoolUsage> poolUsages = poolUsages();

      List<SpanProfile> spanProfiles = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        spanProfiles.add(new SpanProfile(span[i].spanId(), resources.name(resource[i]),
            pools.name(pool[i]), states.name(state[i]), self[i], critical[i], onPath[i],
            allocation[i], parent[i], operation[i]));
      }
      return new TraceProfile(traceId, n, spanTime, ttx, ttc, resourceTime,
          ttx == 0 ? 0 : (double) resourceTime / ttx, criticalPath,
          stateTimes(inclusiveExclusive), resourceBusy(), operationTimes(),
          operations.copyOfNames(),
          spanProfiles, poolUsages, servicePoolStateTimes(),
          keepsSegments ? chosenSegments() : List.of(), primaryRoot);
    }

    // ---- Phase 1: mapping -------------------------------------------------------------------

    private void mapSpans() {
      SpanMapping.Mapper mapper = null;
      for (int i = 0; i < n; i++) {
        SpanRecord s = span[i];
        start[i] = s.startNanos();
        end[i] = s.effectiveEndNanos();
        // Mapped at ingest, where its bytes were in the cache; a span built otherwise is mapped
        // here, the same way.
        MappedSpan m = s.mappedBy(mapping);
        if (m == null) {
          if (mapper == null) {
            mapper = mapping.mapper();
          }
          m = mapper.mapped(s);
        }
        double r = m.capacity();
        // An allocation span names a positive capacity; anything else is ordinary work.
        allocation[i] = r > 0 && !Double.isInfinite(r);
        capacity[i] = r;
        double c = m.cores();
        cores[i] = Double.isNaN(c) || c < 0 ? 1 : c;
        resource[i] = resources.index(m.resourceId());
        pool[i] = pools.index(m.poolId());
        String stateName = m.state();
        int stateIndex = states.index(stateName);
        if (stateIndex == stateDefinitions.size()) {
          stateDefinitions.add(mapping.states().get(stateName));
        }
        state[i] = stateIndex;
        category[i] = categories.index(m.category());
        // The two names, not their concatenation: the hash is the names' cached ones.
        operation[i] = operations.index(scratch.operation(s.serviceName(), s.name()));
        service[i] = services.index(s.serviceName());
      }
    }

    private void sortByTime() {
      byStart = arrays.unclearedInts(n);
      byEnd = arrays.unclearedInts(n);
      for (int i = 0; i < n; i++) {
        byStart[i] = i;
        byEnd[i] = i;
      }
      IndexSort.byKey(byStart, n, start);
      IndexSort.byKey(byEnd, n, end);
    }

    // ---- Phase 2: the span tree ---------------------------------------------------------------

    private void buildTree() {
      parent = arrays.unclearedInts(n);
      inTree = arrays.unclearedBooleans(n);
      // Span ids hashed into a table of positions, rather than boxed into a map: the first span
      // of an id takes its slot, and duplicates count everywhere but in the tree.
      long[] ids = arrays.unclearedLongs(n);
      // A scratch array may be longer than asked for: the mask, not its length, sizes the table.
      int mask = Integer.highestOneBit(Math.max(n, 1) * 2 - 1) * 2 - 1;
      int[] slots = arrays.ints(mask + 1);
      for (int i = 0; i < n; i++) {
        ids[i] = span[i].spanId();
        inTree[i] = positionOfId(slots, mask, ids, ids[i], i) == i;
      }
      for (int i = 0; i < n; i++) {
        parent[i] = -1;
        if (inTree[i] && span[i].parentSpanId() != 0) {
          int p = positionOfId(slots, mask, ids, span[i].parentSpanId(), -1);
          if (p >= 0 && p != i) {
            parent[i] = p;
          }
        }
      }
      breakCycles();
      childStart = arrays.ints(n + 1);
      childrenByStart = arrays.unclearedInts(n);
      childrenByEnd = arrays.unclearedInts(n);
      groupStarts(parent, n, childStart);
      groupMembers(parent, n, childStart, byStart, childrenByStart);
      groupMembers(parent, n, childStart, byEnd, childrenByEnd);
    }

    /**
     * The position of the first span with {@code id} in a table of positions + 1 (0: empty
     * slot) of {@code mask + 1} slots, a power of two at least twice the span count so it stays
     * at most half full; linear probing. When there is none, {@code absent}, also placed in the
     * table unless negative.
     */
    private static int positionOfId(int[] slots, int mask, long[] ids, long id, int absent) {
      // Span ids are random, but not every producer's: a multiplicative hash spreads any bits.
      for (int slot = (int) ((id * 0x9E3779B97F4A7C15L) >>> 32) & mask; ;
          slot = (slot + 1) & mask) {
        int position = slots[slot] - 1;
        if (position < 0) {
          if (absent >= 0) {
            slots[slot] = absent + 1;
          }
          return absent;
        }
        if (ids[position] == id) {
          return position;
        }
      }
    }

    /**
     * Group g's members will be {@code members[start[g], start[g + 1])} for {@code group[i]}
     * (negative: in no group): counts each group into {@code start}, zeroed, of groups + 1.
     */
    private void groupStarts(int[] group, int groups, int[] start) {
      for (int i = 0; i < n; i++) {
        if (group[i] >= 0) {
          start[group[i] + 1]++;
        }
      }
      for (int g = 0; g < groups; g++) {
        start[g + 1] += start[g];
      }
    }

    /** Places each group's members in their range, in {@code order}'s order: a counting sort. */
    private void groupMembers(int[] group, int groups, int[] start, int[] order, int[] members) {
      int[] fill = arrays.unclearedInts(groups);
      System.arraycopy(start, 0, fill, 0, groups);
      for (int k = 0; k < n; k++) {
        int i = order[k];
        if (group[i] >= 0) {
          members[fill[group[i]]++] = i;
        }
      }
    }

    /** Spans on a parent cycle become roots (semantics.md §2, critical path). */
    private void breakCycles() {
      int[] mark = arrays.ints(n); // 0 new, 1 on the current path, 2 done
      int[] path = arrays.unclearedInts(n);
      for (int i = 0; i < n; i++) {
        int length = 0;
        int at = i;
        while (at >= 0 && mark[at] == 0) {
          mark[at] = 1;
          path[length++] = at;
          at = parent[at];
        }
        if (at >= 0 && mark[at] == 1) {
          // The walk met its own path: 'at' and everything after it on the path form a cycle.
          int k = length - 1;
          while (path[k] != at) {
            k--;
          }
          for (int j = k; j < length; j++) {
            parent[path[j]] = -1;
          }
        }
        for (int j = 0; j < length; j++) {
          mark[path[j]] = 2;
        }
        work += length;
      }
    }

    // ---- Phase 3: per-resource sweep --------------------------------------------------------

    private long unionOfActivity() {
      int[] order = arrays.unclearedInts(n);
      int count = 0;
      for (int k = 0; k < n; k++) {
        if (onTimeline(byStart[k])) {
          order[count++] = byStart[k];
        }
      }
      work += count;
      return Intervals.unionLength(order, count, start, end);
    }

    /**
     * For each resource, walks its span boundaries in time order keeping the active spans and,
     * for every span, how many of its same-resource descendants are active. In each elementary
     * segment the chosen span is the best active span with no active descendant (a leaf).
     */
    private void sweepResources() {
      int resourceCount = resources.size();
      chosenNs = arrays.longs(n);
      int[] resourceParent = resourceParents();
      int[] activeDescendants = arrays.ints(n);

      // Group the timeline spans (activity spans of positive length) by resource.
      int[] timelineResource = arrays.unclearedInts(n);
      for (int i = 0; i < n; i++) {
        timelineResource[i] = onTimeline(i) ? resource[i] : -1;
      }
      // Resource r's spans are starts[groupStart[r], groupStart[r + 1]) by start, and the same
      // range of ends by end.
      int[] groupStart = arrays.ints(resourceCount + 1);
      groupStarts(timelineResource, resourceCount, groupStart);
      int[] starts = arrays.unclearedInts(n);
      int[] ends = arrays.unclearedInts(n);
      groupMembers(timelineResource, resourceCount, groupStart, byStart, starts);
      groupMembers(timelineResource, resourceCount, groupStart, byEnd, ends);
      boolean[] active = arrays.booleans(n);
      // The active spans with no active descendant, best first: the first is the chosen span.
      IndexHeap leaves =
          new IndexHeap(arrays.unclearedInts(n), arrays.unclearedInts(n), n, this::choiceBefore);
      for (int r = 0; r < resourceCount; r++) {
        int groupEnd = groupStart[r + 1];
        int nextStart = groupStart[r];
        int nextEnd = groupStart[r];
        long previous = 0;
        while (nextEnd < groupEnd) {
          long t = nextStart < groupEnd ? Math.min(start[starts[nextStart]], end[ends[nextEnd]])
              : end[ends[nextEnd]];
          if (!leaves.isEmpty() && t > previous) {
            int chosen = leaves.first();
            chosenNs[chosen] += t - previous;
            segments.add(previous, t, chosen);
            stateRuns.add(previous, t, state[chosen]);
          }
          // Half-open intervals: what ends at t is gone before what starts at t begins.
          while (nextEnd < groupEnd && end[ends[nextEnd]] == t) {
            int s = ends[nextEnd++];
            active[s] = false;
            leaves.remove(s);
            for (int a = resourceParent[s]; a >= 0; a = resourceParent[a]) {
              if (--activeDescendants[a] == 0 && active[a]) {
                leaves.add(a);
              }
              work++;
            }
          }
          while (nextStart < groupEnd && start[starts[nextStart]] == t) {
            int s = starts[nextStart++];
            active[s] = true;
            if (activeDescendants[s] == 0) {
              leaves.add(s);
            }
            for (int a = resourceParent[s]; a >= 0; a = resourceParent[a]) {
              if (activeDescendants[a]++ == 0 && active[a]) {
                leaves.remove(a);
              }
              work++;
            }
          }
          work += 1 + 32 - Integer.numberOfLeadingZeros(leaves.size());
          previous = t;
        }
      }
      // The sums by resource, state, operation and (service, pool, state) are taken from each
      // span's chosen time afterwards: an elementary segment costs one addition, not one per sum.
      busy = arrays.longs(resourceCount);
      stateResourceNs = arrays.longs(states.size());
      operationResourceNs = arrays.longs(operations.size());
      for (int i = 0; i < n; i++) {
        busy[resource[i]] += chosenNs[i];
        stateResourceNs[state[i]] += chosenNs[i];
        operationResourceNs[operation[i]] += chosenNs[i];
      }
    }

    private boolean onTimeline(int i) {
      return !allocation[i] && end[i] > start[i];
    }

    /** Each activity span's nearest ancestor on the same resource (any depth), or -1. */
    private int[] resourceParents() {
      int[] resourceParent = arrays.unclearedInts(n);
      for (int i = 0; i < n; i++) {
        resourceParent[i] = -1;
        if (allocation[i]) {
          continue;
        }
        for (int a = parent[i]; a >= 0; a = parent[a]) {
          work++;
          if (resource[a] == resource[i] && !allocation[a]) {
            resourceParent[i] = a;
            break;
          }
        }
      }
      return resourceParent;
    }

    /** Orders leaves best first; the position breaks the last tie so the order is total. */
    private boolean choiceBefore(int a, int b) {
      return better(a, b) || !better(b, a) && a < b;
    }

    /** Dominant state first, then latest start, then span id ascending. */
    private boolean better(int a, int b) {
      if (state[a] != state[b]) {
        return dominates(state[a], state[b]);
      }
      if (start[a] != start[b]) {
        return start[a] > start[b];
      }
      return Long.compareUnsigned(span[a].spanId(), span[b].spanId()) < 0;
    }

    // ---- Phase 4: states across resources ---------------------------------------------------

    /**
     * [0]: inclusive time per state, the union of its segments over all resources; [1]: exclusive
     * time per state, where it is the dominant state among those present.
     */
    private long[][] sweepStates() {
      int stateCount = states.size();
      long[] inclusive = arrays.longs(stateCount);
      long[] exclusive = arrays.longs(stateCount);
      int m = stateRuns.size;
      int[] runsByStart = arrays.unclearedInts(m);
      int[] runsByEnd = arrays.unclearedInts(m);
      for (int k = 0; k < m; k++) {
        runsByStart[k] = k;
        runsByEnd[k] = k;
      }
      IndexSort.byKey(runsByStart, m, stateRuns.from);
      IndexSort.byKey(runsByEnd, m, stateRuns.to);

      // Inclusive: runs arrive by start, so each state's union grows at its right end.
      long[] unionFrom = arrays.unclearedLongs(stateCount);
      long[] unionTo = arrays.unclearedLongs(stateCount);
      Arrays.fill(unionTo, 0, stateCount, Long.MIN_VALUE);
      for (int k = 0; k < m; k++) {
        int run = runsByStart[k];
        int s = stateRuns.owner[run];
        long from = stateRuns.from[run];
        long to = stateRuns.to[run];
        if (from > unionTo[s]) {
          if (unionTo[s] != Long.MIN_VALUE) {
            inclusive[s] += unionTo[s] - unionFrom[s];
          }
          unionFrom[s] = from;
          unionTo[s] = to;
        } else {
          unionTo[s] = Math.max(unionTo[s], to);
        }
      }
      for (int s = 0; s < stateCount; s++) {
        if (unionTo[s] != Long.MIN_VALUE) {
          inclusive[s] += unionTo[s] - unionFrom[s];
        }
      }

      // Exclusive: the states present, dominant first.
      int[] present = arrays.ints(stateCount);
      // The ranks of the states present: the lowest set bit is the dominant state.
      BitSet presentRanks = new BitSet(stateCount);
      int presentCount = 0;
      int nextStart = 0;
      int nextEnd = 0;
      long previous = 0;
      while (nextEnd < m) {
        long t = nextStart < m
            ? Math.min(stateRuns.from[runsByStart[nextStart]], stateRuns.to[runsByEnd[nextEnd]])
            : stateRuns.to[runsByEnd[nextEnd]];
        if (t > previous && !presentRanks.isEmpty()) {
          exclusive[stateByRank[presentRanks.nextSetBit(0)]] += t - previous;
        }
        while (nextEnd < m && stateRuns.to[runsByEnd[nextEnd]] == t) {
          int s = stateRuns.owner[runsByEnd[nextEnd++]];
          if (--present[s] == 0) {
            presentRanks.clear(stateRank[s]);
            presentCount--;
          }
        }
        while (nextStart < m && stateRuns.from[runsByStart[nextStart]] == t) {
          int s = stateRuns.owner[runsByStart[nextStart++]];
          if (present[s]++ == 0) {
            presentRanks.set(stateRank[s]);
            presentCount++;
          }
        }
        work += 1 + 32 - Integer.numberOfLeadingZeros(presentCount);
        previous = t;
      }
      return new long[][] {inclusive, exclusive};
    }

    /** Whether state a dominates state b (see {@link #rankStates}). */
    private boolean dominates(int a, int b) {
      return stateRank[a] < stateRank[b];
    }

    /**
     * Ranks this trace's states once, dominant first: highest priority, ties by state name
     * ascending. The sweeps compare states per event; comparing two ints is all they then do.
     */
    private void rankStates() {
      StateDefinition[] order = stateDefinitions.toArray(new StateDefinition[0]);
      Arrays.sort(order, DOMINANCE);
      stateRank = arrays.unclearedInts(order.length);
      stateByRank = arrays.unclearedInts(order.length);
      for (int rank = 0; rank < order.length; rank++) {
        int state = states.index(order[rank].name());
        stateRank[state] = rank;
        stateByRank[rank] = state;
      }
    }

    // ---- Phase 5: self time -----------------------------------------------------------------

    private long[] selfTimes() {
      long[] self = arrays.unclearedLongs(n);
      long[] clippedStart = arrays.unclearedLongs(n);
      long[] clippedEnd = arrays.unclearedLongs(n);
      int[] order = arrays.unclearedInts(n);
      for (int i = 0; i < n; i++) {
        int count = 0;
        // By start, the children are by clipped start too: clipping keeps their order.
        for (int k = childStart[i]; k < childStart[i + 1]; k++) {
          int c = childrenByStart[k];
          clippedStart[c] = Math.max(start[c], start[i]);
          clippedEnd[c] = Math.min(end[c], end[i]);
          if (clippedEnd[c] > clippedStart[c]) {
            order[count++] = c;
          }
        }
        work += childStart[i + 1] - childStart[i];
        self[i] = end[i] - start[i] - Intervals.unionLength(order, count, clippedStart, clippedEnd);
      }
      return self;
    }

    // ---- Phase 6: critical path -------------------------------------------------------------

    /**
     * Walks every root, primary root first; returns the critical time of the primary root's tree.
     *
     * <p>Walk(s, lo, hi): cursor = hi; children by clipped end descending (ties: longer first,
     * then span id); a child ending after the cursor is skipped, else s gets cursor − child end,
     * the child is walked, and the cursor moves to the child's start; finally s gets cursor − lo.
     * A child ending exactly at the cursor is eligible, so back-to-back children stay on the path.
     */
    private long criticalPath(long[] critical, boolean[] onPath) {
      clippedFrom = arrays.unclearedLongs(n);
      clippedTo = arrays.unclearedLongs(n);
      walkChildren = arrays.unclearedInts(n);
      walkStack = arrays.unclearedInts(n);
      walkNext = arrays.unclearedInts(n);
      walkEnd = arrays.unclearedInts(n);
      walkCursor = arrays.unclearedLongs(n);
      // The primary root is the earliest, then longest, then lowest span id. The other roots'
      // trees are disjoint from it and from each other, so their order changes nothing.
      for (int i = 0; i < n; i++) {
        if (inTree[i] && parent[i] < 0 && (primaryRoot < 0 || precedes(i, primaryRoot))) {
          primaryRoot = i;
        }
      }
      if (primaryRoot < 0) {
        return 0;
      }
      long primary = walk(primaryRoot, critical, onPath);
      for (int i = 0; i < n; i++) {
        if (inTree[i] && parent[i] < 0 && i != primaryRoot) {
          walk(i, critical, onPath);
        }
      }
      return primary;
    }

    /** Root a comes before root b: earlier, then longer, then by unsigned span id. */
    private boolean precedes(int a, int b) {
      if (start[a] != start[b]) {
        return start[a] < start[b];
      }
      long durationA = end[a] - start[a];
      long durationB = end[b] - start[b];
      if (durationA != durationB) {
        return durationA > durationB;
      }
      return Long.compareUnsigned(span[a].spanId(), span[b].spanId()) < 0;
    }

    /**
     * Walks the tree of {@code root}, iteratively: {@link #walkStack} holds the spans being
     * walked, innermost last, and each of them its frame: its eligible children, in walk order,
     * at {@code walkChildren[walkNext[s], walkEnd[s])}, and its cursor. The frames take
     * {@link #walkChildren} as a stack: a frame's children start where its parent frame's end,
     * and a span is a child of one span only, so they never need more than n places, and a
     * span's frame can be kept at its own position.
     */
    private long walk(int root, long[] critical, boolean[] onPath) {
      clippedFrom[root] = start[root];
      clippedTo[root] = end[root];
      open(root, 0);
      onPath[root] = true;
      walkStack[0] = root;
      int depth = 1;
      long total = 0;
      while (depth > 0) {
        int s = walkStack[depth - 1];
        long cursor = walkCursor[s];
        int next = walkNext[s];
        int frameEnd = walkEnd[s];
        while (next < frameEnd && clippedTo[walkChildren[next]] > cursor) {
          next++;
        }
        if (next < frameEnd) {
          int child = walkChildren[next];
          walkNext[s] = next + 1;
          critical[s] += cursor - clippedTo[child];
          total += cursor - clippedTo[child];
          walkCursor[s] = clippedFrom[child];
          onPath[child] = true;
          open(child, frameEnd);
          walkStack[depth++] = child;
        } else {
          critical[s] += cursor - clippedFrom[s];
          total += cursor - clippedFrom[s];
          depth--;
        }
      }
      return total;
    }

    /**
     * Opens the frame of s, walked over [clippedFrom[s], clippedTo[s]): its eligible children,
     * clipped to that, by clipped end descending, placed in {@link #walkChildren} from
     * {@code from}; its cursor at the interval's end.
     */
    private void open(int s, int from) {
      long lo = clippedFrom[s];
      long hi = clippedTo[s];
      boolean producer = span[s].kind() == SpanKind.PRODUCER;
      int count = from;
      int[] eligible = walkChildren;
      // Latest end first, which clipping keeps: the eligible children come out in walk order
      // but for ties.
      for (int k = childStart[s + 1] - 1; k >= childStart[s]; k--) {
        int c = childrenByEnd[k];
        // A CONSUMER under a PRODUCER runs after the hand-off: it does not block its parent.
        if (producer && span[c].kind() == SpanKind.CONSUMER) {
          continue;
        }
        clippedFrom[c] = Math.max(start[c], lo);
        clippedTo[c] = Math.min(end[c], hi);
        // A child entirely outside its parent is dropped with its subtree.
        if (clippedTo[c] > clippedFrom[c]) {
          eligible[count++] = c;
        }
      }
      // Children ending together (rare): longer first, then span id; stable sorts from the
      // least significant key.
      for (int tieFrom = from, tieTo; tieFrom < count; tieFrom = tieTo) {
        tieTo = tieFrom + 1;
        while (tieTo < count && clippedTo[eligible[tieTo]] == clippedTo[eligible[tieFrom]]) {
          tieTo++;
        }
        if (tieTo - tieFrom > 1) {
          IndexSort.byKey(eligible, tieFrom, tieTo, unsignedSpanIds());
          IndexSort.byKey(eligible, tieFrom, tieTo, clippedFrom);
        }
      }
      work += childStart[s + 1] - childStart[s];
      walkNext[s] = from;
      walkEnd[s] = count;
      walkCursor[s] = hi;
    }

    private long[] unsignedSpanIds() {
      if (unsignedSpanIds == null) {
        unsignedSpanIds = arrays.unclearedLongs(n);
        for (int i = 0; i < n; i++) {
          unsignedSpanIds[i] = span[i].spanId() ^ Long.MIN_VALUE;
        }
      }
      return unsignedSpanIds;
    }

    // ---- Phase 7: pools ---------------------------------------------------------------------

    private List<PoolUsage> poolUsages() {
      List<PoolUsage> usages = new ArrayList<>();
      for (int a = 0; a < n; a++) {
        if (allocation[a]) {
          usages.add(poolUsage(a));
        }
      }
      usages.sort(BY_POOL_AND_START);
      return usages;
    }

    /**
     * Utilization and CPU attribution of allocation span {@code a}: the chosen spans of the pool's
     * resources over the span's interval, swept by {@link PoolSweep}.
     */
    private PoolUsage poolUsage(int a) {
      int p = pool[a];
      long lo = start[a];
      long hi = end[a];
      PoolSweep sweep = new PoolSweep(capacity[a]);
      for (int k = 0; k < segments.size; k++) {
        int chosen = segments.owner[k];
        if (pool[chosen] == p) {
          StateDefinition definition = stateDefinitions.get(state[chosen]);
          sweep.add(definition.name(), definition.stateClass(), categories.name(category[chosen]),
              cores[chosen], Math.max(segments.from[k], lo), Math.min(segments.to[k], hi));
        }
      }
      work += segments.size;
      PoolSweep.Figures figures = sweep.finish(lo, hi);
      return new PoolUsage(pools.name(p), capacity[a], lo, figures.availableNs(),
          figures.utilization(), figures.attributionNs());
    }

    /** Every resource's chosen spans as segments, for pools analysed across traces. */
    private List<ChosenSegment> chosenSegments() {
      List<ChosenSegment> result = new ArrayList<>(segments.size);
      for (int k = 0; k < segments.size; k++) {
        int chosen = segments.owner[k];
        StateDefinition definition = stateDefinitions.get(state[chosen]);
        result.add(new ChosenSegment(pools.name(pool[chosen]), definition.name(),
            definition.stateClass(), categories.name(category[chosen]), cores[chosen],
            segments.from[k], segments.to[k]));
      }
      return result;
    }

    // ---- Results ----------------------------------------------------------------------------

    // Rows list what held some resource for some time: a state, resource or operation that never
    // did (say, a parent always covered by its children) has no row, as in the golden cases.

    private List<StateTime> stateTimes(long[][] inclusiveExclusive) {
      List<StateTime> result = new ArrayList<>(states.size());
      for (int s = 0; s < states.size(); s++) {
        if (stateResourceNs[s] > 0) {
          result.add(new StateTime(states.name(s), stateResourceNs[s], inclusiveExclusive[0][s],
              inclusiveExclusive[1][s]));
        }
      }
      return result;
    }

    private List<ResourceBusy> resourceBusy() {
      List<ResourceBusy> result = new ArrayList<>(resources.size());
      for (int r = 0; r < resources.size(); r++) {
        if (busy[r] > 0) {
          result.add(new ResourceBusy(resources.name(r), busy[r]));
        }
      }
      return result;
    }

    private List<OperationTime> operationTimes() {
      List<OperationTime> result = new ArrayList<>(operations.size());
      for (int o = 0; o < operations.size(); o++) {
        if (operationResourceNs[o] > 0) {
          Operation key = operations.name(o);
          result.add(new OperationTime(key.service(), key.name(), operationResourceNs[o]));
        }
      }
      return result;
    }

    /** The chosen spans' time summed by (service, pool, state), in the order of those ids. */
    private List<ServicePoolStateTime> servicePoolStateTimes() {
      int poolCount = pools.size();
      int stateCount = states.size();
      long keyCount = (long) services.size() * poolCount * stateCount;
      // A trace mostly has one service, a pool or two and a few states: a sum per key in a table
      // then costs less than sorting the spans by key, which is for traces of many keys.
      return keyCount <= 2L * n + 16
          ? servicePoolStateTimesByTable((int) keyCount, poolCount, stateCount)
          : servicePoolStateTimesBySort(poolCount, stateCount);
    }

    private List<ServicePoolStateTime> servicePoolStateTimesByTable(int keyCount, int poolCount,
        int stateCount) {
      long[] time = arrays.longs(keyCount);
      int groups = 0;
      for (int i = 0; i < n; i++) {
        if (chosenNs[i] > 0) {
          int key = (service[i] * poolCount + pool[i]) * stateCount + state[i];
          if (time[key] == 0) {
            groups++;
          }
          time[key] += chosenNs[i];
        }
      }
      List<ServicePoolStateTime> result = new ArrayList<>(groups);
      for (int key = 0; key < keyCount; key++) {
        if (time[key] > 0) {
          int servicePool = key / stateCount;
          result.add(new ServicePoolStateTime(services.name(servicePool / poolCount),
              pools.name(servicePool % poolCount), states.name(key % stateCount), time[key]));
        }
      }
      return result;
    }

    private List<ServicePoolStateTime> servicePoolStateTimesBySort(int poolCount, int stateCount) {
      long[] key = arrays.unclearedLongs(n);
      int[] chosenSpans = arrays.unclearedInts(n);
      int count = 0;
      for (int i = 0; i < n; i++) {
        if (chosenNs[i] > 0) {
          key[i] = ((long) service[i] * poolCount + pool[i]) * stateCount + state[i];
          chosenSpans[count++] = i;
        }
      }
      IndexSort.byKey(chosenSpans, count, key);
      List<ServicePoolStateTime> result = new ArrayList<>();
      for (int from = 0, to; from < count; from = to) {
        int first = chosenSpans[from];
        long time = 0;
        for (to = from; to < count && key[chosenSpans[to]] == key[first]; to++) {
          time += chosenNs[chosenSpans[to]];
        }
        result.add(new ServicePoolStateTime(services.name(service[first]), pools.name(pool[first]),
            states.name(state[first]), time));
      }
      return result;
    }
  }

  /** Small dense ids for the distinct names of one trace. */
  private static final class Names<T> {
    /** Past this many slots a table is dropped when cleared, so a huge trace's is not kept. */
    private static final int MAX_KEPT_SLOTS = 2 * ScratchArrays.MAX_REUSED_LENGTH;

    // Open addressing, linear probing. The names are stamped slots: clearing is a new
    // generation, not a pass over the table.
    private StampedSlots<T> slotNames = new StampedSlots<>(16);
    private int[] slotIds = new int[16];
    /** The names by id, at [0, size): an array, as {@link #name} is asked once per span and row. */
    private Object[] names = new Object[8];
    private int size;
    /**
     * The name asked for last and its id: consecutive spans mostly share their pool, service,
     * state and category, and the mapping hands out the very same instances for them.
     */
    private T lastName;
    private int lastId;

    int index(T name) {
      if (name == lastName) {
        return lastId;
      }
      lastName = name;
      lastId = indexInTable(name);
      return lastId;
    }

    private int indexInTable(T name) {
      int mask = slotIds.length - 1;
      for (int slot = spread(name.hashCode()) & mask; ; slot = (slot + 1) & mask) {
        T candidate = slotNames.get(slot);
        if (candidate == null) {
          int id = size;
          if (id == names.length) {
            names = Arrays.copyOf(names, 2 * id);
          }
          names[size++] = name;
          if (2 * size > slotIds.length) {
            rehash(2 * slotIds.length);
          } else {
            occupy(slot, name, id);
          }
          return id;
        }
        if (candidate == name || candidate.equals(name)) {
          return slotIds[slot];
        }
      }
    }

    @SuppressWarnings("unchecked") // only names of T are stored
    T name(int index) {
      return (T) names[index];
    }

    /** Every name, by index. */
    @SuppressWarnings("unchecked") // only names of T are stored
    List<T> copyOfNames() {
      return (List<T>) List.of(Arrays.copyOf(names, size));
    }

    int size() {
      return size;
    }

    void clear() {
      // The names stay in the array until overwritten: it is the thread's, like the slots.
      size = 0;
      lastName = null;
      if (slotIds.length > MAX_KEPT_SLOTS) {
        names = new Object[8];
        slotNames = new StampedSlots<>(16);
        slotIds = new int[16];
      } else {
        slotNames.clear();
      }
    }

    private void occupy(int slot, T name, int id) {
      slotNames.set(slot, name);
      slotIds[slot] = id;
    }

    /** Places every name of this trace in a table of {@code slots} slots. */
    private void rehash(int slots) {
      slotNames = new StampedSlots<>(slots);
      slotIds = new int[slots];
      int mask = slots - 1;
      for (int id = 0; id < size; id++) {
        T name = name(id);
        int slot = spread(name.hashCode()) & mask;
        while (slotNames.get(slot) != null) {
          slot = (slot + 1) & mask;
        }
        occupy(slot, name, id);
      }
    }

    private static int spread(int hash) {
      return hash ^ (hash >>> 16);
    }
  }

  /**
   * What one thread's analyses reuse: each analysis clears it first. At most about 2 MB a thread
   * (the arrays, six name tables of up to 8 192 slots, the segments), whatever the largest trace.
   */
  private static final class Scratch {
    final ScratchArrays arrays = new ScratchArrays();
    final Names<String> resources = new Names<>();
    final Names<String> pools = new Names<>();
    final Names<String> states = new Names<>();
    final Names<Operation> operations = new Names<>();
    final Names<String> categories = new Names<>();
    final Names<String> services = new Names<>();
    final List<StateDefinition> stateDefinitions = new ArrayList<>();
    final Segments segments = new Segments();
    final Segments stateRuns = new Segments();
    /** Operations of recent spans, by their names' identity; kept from trace to trace. */
    private final Operation[] recentOperations = new Operation[64];

    /**
     * The operation of {@code service} and {@code name}: a recent span's when it had the very
     * same strings (interned at ingest), so that the spans of one operation do not each make one.
     */
    Operation operation(String service, String name) {
      int hash = 31 * service.hashCode() + name.hashCode();
      int slot = (hash ^ hash >>> 16) & (recentOperations.length - 1);
      Operation recent = recentOperations[slot];
      if (recent != null && recent.service() == service && recent.name() == name) {
        return recent;
      }
      Operation operation = new Operation(service, name);
      recentOperations[slot] = operation;
      return operation;
    }

    void clear() {
      arrays.reset();
      resources.clear();
      pools.clear();
      states.clear();
      operations.clear();
      categories.clear();
      services.clear();
      stateDefinitions.clear();
      segments.clear();
      stateRuns.clear();
    }
  }

  /**
   * Time segments, each of an owner (the chosen span of a resource's elementary segment, or its
   * state), adjacent ones of the same owner merged.
   */
  private static final class Segments {
    long[] from = new long[16];
    long[] to = new long[16];
    int[] owner = new int[16];
    int size;

    void clear() {
      size = 0;
      if (from.length > ScratchArrays.MAX_REUSED_LENGTH) {
        from = new long[16];
        to = new long[16];
        owner = new int[16];
      }
    }

    void add(long start, long end, int of) {
      if (size > 0 && owner[size - 1] == of && to[size - 1] == start) {
        to[size - 1] = end;
        return;
      }
      if (size == from.length) {
        from = Arrays.copyOf(from, size * 2);
        to = Arrays.copyOf(to, size * 2);
        owner = Arrays.copyOf(owner, size * 2);
      }
      from[size] = start;
      to[size] = end;
      owner[size] = of;
      size++;
    }
  }
}
