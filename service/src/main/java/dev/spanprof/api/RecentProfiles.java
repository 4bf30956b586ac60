package dev.spanprof.api;

import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.config.QueryConfiguration;
import dev.spanprof.span.TraceId;
import dev.spanprof.stages.ProfileConsumer;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;

/**
 * The profiles of the last {@code spanprof.query.recent-traces} analyses, each with what its row
 * in the list of recent traces needs; the oldest is forgotten first.
 *
 * <p><b>Fragments</b> (semantics.md §2). A trace analysed again (its late spans, or its spans
 * beyond the per-trace limit) is kept once per analysis, but a late fragment never replaces what
 * was analysed before: a trace id answers with its largest fragment (most spans; ties: the
 * earliest), which lists the others, and the list has one row per trace id.
 *
 * <p>A ring, not a map by trace id: keeping a profile is then one store into a slot next to the
 * previous one, where a linked map's removal and insertion each touched entries of traces
 * analysed long ago, out of the core's caches ({@code PipelineBenchmark} from memory). A query
 * instead scans the ids: about 10 µs for 10 000 profiles to find one, and queries are rare.
 *
 * <p>The list of recent traces needs no index of its own: a search groups the kept profiles by
 * trace id, makes each trace's summary row as it goes, newest first, and keeps the slowest
 * matches in a heap of {@code limit}: O(kept · log limit), a few milliseconds for 10 000 kept.
 * Summaries are made when asked for, not when a trace is kept: keeping is on the analysis
 * stage's path ({@code PipelineBenchmark}).
 */
@Singleton
public final class RecentProfiles implements ProfileConsumer {

  private final Recent[] recent;
  /** The low halves of the kept profiles' trace ids: a query reads these, not the profiles. */
  private final long[] traceIdLows;
  private long kept;

  /**
   * A kept profile and what its row in the list of recent traces needs beside it.
   *
   * @param completion the completion's label
   * @param complete the trace is whole as far as spanprof can tell
   * @param arrivalNanos when its last span was received, epoch nanoseconds
   */
  record Recent(TraceProfile profile, String completion, boolean complete, long arrivalNanos) {}

  /**
   * What is kept of one trace id: the fragment it answers with, and the others in the order
   * they were analysed.
   */
  record Found(Recent shown, List<Recent> others) {

    TraceProfile profile() {
      return shown.profile();
    }

    TraceSummary summary() {
      return TraceSummary.of(shown.profile(), shown.completion(), shown.complete(), others,
          shown.arrivalNanos());
    }
  }

  /** Longest TTC first, ties by trace id, so that replicas' lists merge in one order. */
  static final Comparator<TraceSummary> SLOWEST = Comparator
      .comparingLong(TraceSummary::ttcNs).reversed().thenComparing(TraceSummary::traceId);
  /** Latest arrival first, ties by trace id: the newest across replicas. */
  static final Comparator<TraceSummary> NEWEST = Comparator
      .comparingLong(TraceSummary::arrivalNanos).reversed().thenComparing(TraceSummary::traceId);

  RecentProfiles(QueryConfiguration configuration) {
    this.recent = new Recent[configuration.getRecentTraces()];
    this.traceIdLows = new long[recent.length];
  }

  @Override
  public void accept(CompletedTrace trace, TraceProfile profile, long arrivalNanos) {
    TraceProfile withoutSegments = profile.withoutSegments();
    int root = profile.primaryRoot();
    Recent entry = new Recent(withoutSegments, trace.completion().label(),
        root >= 0 && trace.isComplete(trace.spans().get(root), profile.orphanCount()),
        arrivalNanos);
    synchronized (this) {
      int slot = (int) (kept++ % recent.length);
      recent[slot] = entry;
      traceIdLows[slot] = withoutSegments.traceId().low();
    }
  }

  /** The profile a trace id answers with: its largest fragment kept. */
  public Optional<TraceProfile> get(TraceId traceId) {
    return find(traceId).map(Found::profile);
  }

  synchronized Optional<Found> find(TraceId traceId) {
    long low = traceId.low();
    List<Recent> fragments = new ArrayList<>();
    for (long position = Math.max(0, kept - recent.length); position < kept; position++) {
      int slot = (int) (position % recent.length);
      if (traceIdLows[slot] == low && recent[slot].profile().traceId().equals(traceId)) {
        fragments.add(recent[slot]);
      }
    }
    return fragments.isEmpty() ? Optional.empty() : Optional.of(found(fragments));
  }

  /** The largest of a trace's fragments (ties: the earliest) and the others, oldest first. */
  private static Found found(List<Recent> fragments) {
    Recent shown = fragments.get(0);
    for (Recent fragment : fragments) {
      if (fragment.profile().spanCount() > shown.profile().spanCount()) {
        shown = fragment;
      }
    }
    List<Recent> others = new ArrayList<>(fragments);
    others.remove(shown);
    return new Found(shown, others);
  }

  /**
   * The kept traces that match, one row per trace id, newest (by the analysis of the fragment
   * shown) or slowest first, at most {@code query.limit()}.
   */
  List<TraceSummary> search(TraceQuery query) {
    Recent[] snapshot;
    long newest;
    synchronized (this) {
      snapshot = recent.clone();
      newest = kept;
    }
    long oldest = Math.max(0, newest - snapshot.length);
    Map<TraceId, List<Recent>> byTrace = new HashMap<>();
    for (long position = oldest; position < newest; position++) {
      Recent entry = snapshot[(int) (position % snapshot.length)];
      byTrace.computeIfAbsent(entry.profile().traceId(), unused -> new ArrayList<>(1))
          .add(entry);
    }
    Comparator<TraceSummary> faster = SLOWEST.reversed();
    PriorityQueue<TraceSummary> slowest = new PriorityQueue<>(faster);
    List<TraceSummary> result = new ArrayList<>();
    for (long position = newest - 1; position >= oldest; position--) {
      Recent entry = snapshot[(int) (position % snapshot.length)];
      List<Recent> fragments = byTrace.get(entry.profile().traceId());
      Found trace = fragments.size() == 1 ? new Found(entry, List.of()) : found(fragments);
      if (trace.shown() != entry) {
        continue; // the row is made where the fragment shown was kept
      }
      TraceSummary summary = trace.summary();
      if (!query.matches(summary, entry.profile().distinctOperations())) {
        continue;
      }
      if (!query.slowest()) {
        result.add(summary);
        if (result.size() == query.limit()) {
          return result;
        }
      } else {
        slowest.add(summary);
        if (slowest.size() > query.limit()) {
          slowest.poll();
        }
      }
    }
    if (query.slowest()) {
      result.addAll(slowest);
      result.sort(SLOWEST);
    }
    return result;
  }
}
