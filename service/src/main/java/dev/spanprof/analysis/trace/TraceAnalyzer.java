package dev.spanprof.analysis.trace;

import dev.spanprof.analysis.internal.IndexSort;
import dev.spanprof.analysis.internal.ScratchArrays;
import dev.spanprof.analysis.trace.TraceProfile.OperationTime;
import dev.spanprof.analysis.trace.TraceProfile.ResourceBusy;
import dev.spanprof.analysis.trace.TraceProfile.ServicePoolStateTime;
import dev.spanprof.analysis.trace.TraceProfile.SpanProfile;
import dev.spanprof.analysis.trace.TraceProfile.StateTime;
import dev.spanprof.span.Operation;
import dev.spanprof.span.SpanMapping;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.SpanStatus;
import dev.spanprof.span.TraceId;
import java.util.ArrayList;
import java.util.List;

/**
 * Computes a {@link TraceProfile} from a trace's spans, exactly as semantics.md §1–3 define it,
 * in phases, each a class named by what it computes, from what the phases before it computed:
 * <ol>
 *   <li>{@link TraceSpans}: every span mapped once, as columns, and sorted by start and by end;
 *   <li>{@link SpanTree}: the first span of an id wins, orphans and parent cycles become roots;
 *   <li>{@link ResourceTimeline}: per resource, the chosen span of every elementary segment,
 *       giving busy time and resource time per state and per operation;
 *   <li>{@link StateTimes}: inclusive and exclusive time per state, across resources;
 *   <li>{@link SelfTimes}: each span's time not covered by its children;
 *   <li>{@link CriticalPath}: every root walked, primary root first;
 *   <li>{@link PoolUsages}: utilization and CPU attribution over each allocation span;
 * </ol>
 * and then the {@link Totals} and the profile's rows.
 *
 * <p>Thread-safe: each call works on its own state, in arrays and name tables its thread reuses
 * from one analysis to the next ({@link AnalysisScratch}); nothing of them reaches the profile.
 */
public final class TraceAnalyzer {

  /** Each analysing thread's reusable arrays and name tables. */
  private static final ThreadLocal<AnalysisScratch> SCRATCH =
      ThreadLocal.withInitial(AnalysisScratch::new);

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
    AnalysisScratch scratch = SCRATCH.get();
    scratch.clear();
    ScratchArrays arrays = scratch.arrays;
    TraceSpans mapped = TraceSpans.map(spans, mapping, scratch);
    SpanTree tree = SpanTree.of(mapped, arrays);
    ResourceTimeline timeline = ResourceTimeline.of(mapped, tree, scratch);
    Totals totals = Totals.of(mapped, timeline, arrays);
    StateTimes stateTimes = StateTimes.of(mapped, timeline.stateRuns, arrays);
    long[] selfNs = SelfTimes.of(mapped, tree, arrays);
    CriticalPath criticalPath = CriticalPath.of(mapped, tree, scratch);
    return new TraceProfile(traceId, mapped.count, totals.startNanos(), totals.spanTimeNs(),
        totals.ttxNs(), totals.ttcNs(), totals.resourceTimeNs(), totals.parallelism(),
        criticalPath.primaryNs, stateRows(mapped, timeline, stateTimes),
        resourceRows(mapped, timeline), operationRows(mapped, timeline),
        mapped.operations.copyOfNames(), spanRows(mapped, tree, selfNs, criticalPath),
        PoolUsages.of(mapped, timeline.segments), servicePoolStateRows(mapped, timeline, arrays),
        keepsSegments ? PoolUsages.chosenSegments(mapped, timeline.segments) : List.of(),
        criticalPath.primaryRoot, SpanSegments.copyOf(timeline.segments, false),
        // The walk finds the path latest first.
        SpanSegments.copyOf(criticalPath.primaryPath, true), tree.orphans);
  }

  // Rows list what held some resource for some time: a state, resource or operation that never
  // did (say, a parent always covered by its children) has no row, as in the golden cases. They
  // are in order of first appearance: only the JSON view orders them, when a profile is asked
  // for.

  private static List<StateTime> stateRows(TraceSpans spans, ResourceTimeline timeline,
      StateTimes stateTimes) {
    List<StateTime> result = new ArrayList<>(spans.states.size());
    for (int s = 0; s < spans.states.size(); s++) {
      if (timeline.stateResourceNs[s] > 0) {
        result.add(new StateTime(spans.states.name(s), timeline.stateResourceNs[s],
            stateTimes.inclusiveNs()[s], stateTimes.exclusiveNs()[s]));
      }
    }
    return result;
  }

  private static List<ResourceBusy> resourceRows(TraceSpans spans, ResourceTimeline timeline) {
    List<ResourceBusy> result = new ArrayList<>(spans.resources.size());
    for (int r = 0; r < spans.resources.size(); r++) {
      if (timeline.busyNs[r] > 0) {
        result.add(new ResourceBusy(spans.resources.name(r), timeline.busyNs[r]));
      }
    }
    return result;
  }

  private static List<OperationTime> operationRows(TraceSpans spans, ResourceTimeline timeline) {
    List<OperationTime> result = new ArrayList<>(spans.operations.size());
    for (int o = 0; o < spans.operations.size(); o++) {
      if (timeline.operationResourceNs[o] > 0) {
        Operation key = spans.operations.name(o);
        result.add(new OperationTime(key.service(), key.name(), timeline.operationResourceNs[o]));
      }
    }
    return result;
  }

  private static List<SpanProfile> spanRows(TraceSpans spans, SpanTree tree, long[] selfNs,
      CriticalPath criticalPath) {
    List<SpanProfile> result = new ArrayList<>(spans.count);
    for (int i = 0; i < spans.count; i++) {
      SpanStatus status = spans.span[i].status();
      result.add(new SpanProfile(spans.span[i].spanId(), spans.resources.name(spans.resource[i]),
          spans.pools.name(spans.pool[i]), spans.states.name(spans.state[i]), selfNs[i],
          criticalPath.criticalNs[i], criticalPath.onPath[i], spans.allocation[i],
          tree.parent[i], spans.operation[i], spans.span[i].kind(), spans.startNanos[i],
          spans.endNanos[i], tree.orphan[i], status,
          status == SpanStatus.ERROR ? spans.span[i].statusMessage() : ""));
    }
    return result;
  }

  /**
   * The chosen spans' time summed by (service, pool, state), in the order of those ids: the
   * chosen spans sorted by their key, and each run of one key summed.
   */
  private static List<ServicePoolStateTime> servicePoolStateRows(TraceSpans spans,
      ResourceTimeline timeline, ScratchArrays arrays) {
    int poolCount = spans.pools.size();
    int stateCount = spans.states.size();
    long[] key = arrays.unclearedLongs(spans.count);
    int[] chosenSpans = arrays.unclearedInts(spans.count);
    int count = 0;
    for (int i = 0; i < spans.count; i++) {
      if (timeline.chosenNs[i] > 0) {
        key[i] = ((long) spans.service[i] * poolCount + spans.pool[i]) * stateCount
            + spans.state[i];
        chosenSpans[count++] = i;
      }
    }
    IndexSort.byKey(chosenSpans, count, key);
    List<ServicePoolStateTime> result = new ArrayList<>();
    for (int from = 0, to; from < count; from = to) {
      int first = chosenSpans[from];
      long timeNs = 0;
      for (to = from; to < count && key[chosenSpans[to]] == key[first]; to++) {
        timeNs += timeline.chosenNs[chosenSpans[to]];
      }
      result.add(new ServicePoolStateTime(spans.services.name(spans.service[first]),
          spans.pools.name(spans.pool[first]), spans.states.name(spans.state[first]), timeNs));
    }
    return result;
  }
}
