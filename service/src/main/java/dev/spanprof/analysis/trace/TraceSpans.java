package dev.spanprof.analysis.trace;

import dev.spanprof.analysis.internal.IndexSort;
import dev.spanprof.analysis.internal.ScratchArrays;
import dev.spanprof.span.MappedSpan;
import dev.spanprof.span.Operation;
import dev.spanprof.span.SpanMapping;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.StateDefinition;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Phase 1 of the per-trace analysis, semantics.md §1 (inputs and mapping): every span mapped
 * once to its interval, resource, pool, state, category, operation, cores and capacity, held as
 * columns indexed by the span's position in the trace, with the trace's names as small dense ids.
 * Also the two time orders every later phase takes its spans in, and the dominance order of the
 * trace's states.
 *
 * <p>The columns come from the thread's {@link AnalysisScratch}, so they may be longer than the
 * trace: loops run to {@link #count}, or to a name table's size, never to an array's length.
 */
final class TraceSpans {

  /** Dominant state first: highest priority, ties by state name ascending. */
  private static final Comparator<StateDefinition> DOMINANCE =
      Comparator.comparingInt(StateDefinition::priority).reversed()
          .thenComparing(StateDefinition::name);

  final int count;
  final SpanRecord[] span;
  final long[] startNanos;
  /** The effective end: a span ending before it starts is zero-length at its start. */
  final long[] endNanos;
  /** Whether the span is an allocation span: it names a positive, finite capacity. */
  final boolean[] allocation;
  final double[] cores;
  final double[] capacity;
  final int[] resource;
  final int[] pool;
  final int[] state;
  final int[] operation;
  final int[] category;
  final int[] service;

  final Names<String> resources;
  final Names<String> pools;
  final Names<String> states;
  final Names<Operation> operations;
  final Names<String> categories;
  final Names<String> services;
  /** The definition of each state, by state id. */
  final List<StateDefinition> stateDefinitions;

  /** Per state id, its place in the dominance order (0 dominates all). */
  final int[] stateRank;
  /** The state id at each place of the dominance order. */
  final int[] stateByRank;

  /** Every span's position by start, and by end; ties by position. */
  final int[] byStart;
  final int[] byEnd;

  private TraceSpans(List<SpanRecord> spans, SpanMapping mapping, AnalysisScratch scratch) {
    ScratchArrays arrays = scratch.arrays;
    count = spans.size();
    span = spans.toArray(new SpanRecord[0]);
    startNanos = arrays.unclearedLongs(count);
    endNanos = arrays.unclearedLongs(count);
    allocation = arrays.unclearedBooleans(count);
    cores = arrays.unclearedDoubles(count);
    capacity = arrays.unclearedDoubles(count);
    resource = arrays.unclearedInts(count);
    pool = arrays.unclearedInts(count);
    state = arrays.unclearedInts(count);
    operation = arrays.unclearedInts(count);
    category = arrays.unclearedInts(count);
    service = arrays.unclearedInts(count);
    resources = scratch.resources;
    pools = scratch.pools;
    states = scratch.states;
    operations = scratch.operations;
    categories = scratch.categories;
    services = scratch.services;
    stateDefinitions = scratch.stateDefinitions;
    map(mapping, scratch);
    stateRank = arrays.unclearedInts(states.size());
    stateByRank = arrays.unclearedInts(states.size());
    rankStates();
    byStart = arrays.unclearedInts(count);
    byEnd = arrays.unclearedInts(count);
    for (int i = 0; i < count; i++) {
      byStart[i] = i;
      byEnd[i] = i;
    }
    IndexSort.byKey(byStart, count, startNanos);
    IndexSort.byKey(byEnd, count, endNanos);
  }

  /** Maps {@code spans} into the thread's cleared {@code scratch}. */
  static TraceSpans map(List<SpanRecord> spans, SpanMapping mapping, AnalysisScratch scratch) {
    return new TraceSpans(spans, mapping, scratch);
  }

  /** Whether span i is on its resource's timeline: an activity span of positive length. */
  boolean onTimeline(int i) {
    return !allocation[i] && endNanos[i] > startNanos[i];
  }

  /** Whether state a dominates state b: a higher priority, or the same and a lower name. */
  boolean dominates(int a, int b) {
    return stateRank[a] < stateRank[b];
  }

  private void map(SpanMapping mapping, AnalysisScratch scratch) {
    SpanMapping.Mapper mapper = null;
    for (int i = 0; i < count; i++) {
      SpanRecord s = span[i];
      startNanos[i] = s.startNanos();
      endNanos[i] = s.effectiveEndNanos();
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
      allocation[i] = r > 0 && !Double.isInfinite(r);
      capacity[i] = r;
      double c = m.cores();
      cores[i] = Double.isNaN(c) || c < 0 ? 1 : c;
      resource[i] = resources.index(m.resourceId());
      pool[i] = pools.index(m.poolId());
      String stateName = m.state();
      int stateId = states.index(stateName);
      if (stateId == stateDefinitions.size()) {
        stateDefinitions.add(mapping.states().get(stateName));
      }
      state[i] = stateId;
      category[i] = categories.index(m.category());
      // The two names, not their concatenation: the hash is the names' cached ones.
      operation[i] = operations.index(scratch.operation(s.serviceName(), s.name()));
      service[i] = services.index(s.serviceName());
    }
  }

  /**
   * Ranks the trace's states once, dominant first: the sweeps compare states per event, and
   * comparing two ints is then all they do.
   */
  private void rankStates() {
    StateDefinition[] order = stateDefinitions.toArray(new StateDefinition[0]);
    Arrays.sort(order, DOMINANCE);
    for (int rank = 0; rank < order.length; rank++) {
      int id = states.index(order[rank].name());
      stateRank[id] = rank;
      stateByRank[rank] = id;
    }
  }
}
