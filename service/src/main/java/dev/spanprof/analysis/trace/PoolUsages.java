package dev.spanprof.analysis.trace;

import dev.spanprof.analysis.pool.ChosenSegment;
import dev.spanprof.analysis.pool.PoolSweep;
import dev.spanprof.analysis.trace.TraceProfile.PoolUsage;
import dev.spanprof.span.StateDefinition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Phase 7 of the per-trace analysis, semantics.md §3: utilization and CPU attribution over each
 * allocation span, from the chosen spans of its pool's resources; and the chosen segments for
 * pools analysed across traces.
 */
final class PoolUsages {

  // Written out rather than composed from Comparator.comparing: a composed comparator calls its
  // key extractors through lambdas shared by every comparing() in the process, which the JIT
  // cannot inline.
  private static final Comparator<PoolUsage> BY_POOL_AND_START = (a, b) -> {
    int byPool = a.pool().compareTo(b.pool());
    return byPool != 0 ? byPool : Long.compare(a.startNanos(), b.startNanos());
  };

  private PoolUsages() {}

  /** One row per allocation span, by pool and then start. */
  static List<PoolUsage> of(TraceSpans spans, Segments segments) {
    List<PoolUsage> usages = new ArrayList<>();
    for (int a = 0; a < spans.count; a++) {
      if (spans.allocation[a]) {
        usages.add(usage(spans, segments, a));
      }
    }
    usages.sort(BY_POOL_AND_START);
    return usages;
  }

  /** Every resource's chosen spans as segments. */
  static List<ChosenSegment> chosenSegments(TraceSpans spans, Segments segments) {
    List<ChosenSegment> result = new ArrayList<>(segments.size);
    for (int k = 0; k < segments.size; k++) {
      int chosen = segments.owner[k];
      StateDefinition definition = spans.stateDefinitions.get(spans.state[chosen]);
      result.add(new ChosenSegment(spans.pools.name(spans.pool[chosen]), definition.name(),
          definition.stateClass(), spans.categories.name(spans.category[chosen]),
          spans.cores[chosen], segments.from[k], segments.to[k]));
    }
    return result;
  }

  /** Allocation span {@code a}'s figures: its pool's chosen spans over its interval, swept. */
  private static PoolUsage usage(TraceSpans spans, Segments segments, int a) {
    int p = spans.pool[a];
    long lo = spans.startNanos[a];
    long hi = spans.endNanos[a];
    PoolSweep sweep = new PoolSweep(spans.capacity[a]);
    for (int k = 0; k < segments.size; k++) {
      int chosen = segments.owner[k];
      if (spans.pool[chosen] == p) {
        StateDefinition definition = spans.stateDefinitions.get(spans.state[chosen]);
        sweep.add(definition.name(), definition.stateClass(),
            spans.categories.name(spans.category[chosen]), spans.cores[chosen],
            Math.max(segments.from[k], lo), Math.min(segments.to[k], hi));
      }
    }
    PoolSweep.Figures figures = sweep.finish(lo, hi);
    return new PoolUsage(spans.pools.name(p), spans.capacity[a], lo, figures.availableNs(),
        figures.utilization(), figures.attributionNs());
  }
}
