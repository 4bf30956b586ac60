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
 *
 * <p><b>Original spans.</b> Beside each profile, while {@code spanprof.query.recent-trace-bytes}
 * allows, its spans as received, in the {@link OriginalSpanLog}: the oldest go first, so the
 * newest traces show their attributes, and an older profile is answered without them.
 */
@Singleton
public final class RecentProfiles implements ProfileConsumer {

  private final Recent[] recent;
  /** The low halves of the kept profiles' trace ids: a query reads these, not the profiles. */
  private final long[] traceIdLows;
  private final OriginalSpanLog originals;
  /** Where {@code recent[slot]}'s spans as received are in {@link #originals}; -1: nowhere. */
  private final long[] originalAt;
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
   *
   * @param originalAt where the shown fragment's spans as received are in the log
   */
  record Found(Recent shown, List<Recent> others, long originalAt) {

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
    this.originals = new OriginalSpanLog(configuration.getRecentTraceBytes());
    this.originalAt = new long[recent.length];
  }

  @Override
  public void accept(CompletedTrace trace, TraceProfile profile, long arrivalNanos) {
    TraceProfile withoutSegments = profile.withoutSegments();
    int root = profile.primaryRoot();
    Recent entry = new Recent(withoutSegments, trace.completion().label(),
        root >= 0 && trace.isComplete(trace.spans().get(root), profile.orphanCount()),
        arrivalNanos);
    // Copied here, before forwarding (the next stage) lets the spans' bytes go.
    long original = originals.append(trace.spans());
    synchronized (this) {
      int slot = (int) (kept++ % recent.length);
      recent[slot] = entry;
      traceIdLows[slot] = withoutSegments.traceId().low();
      originalAt[slot] = original;
    }
  }

  /** A trace's spans as received, while they are kept; else null. */
  OriginalSpans originals(Found found) {
    return originals.read(found.originalAt());
  }

  /** The profile a trace id answers with: its largest fragment kept. */
  public Optional<TraceProfile> get(TraceId traceId) {
    return find(traceId).map(Found::profile);
  }

  synchronized Optional<Found> find(TraceId traceId) {
    long low = traceId.low();
    List<Integer> slots = new ArrayList<>();
    for (long position = Math.max(0, kept - recent.length); position < kept; position++) {
      int slot = (int) (position % recent.length);
      if (traceIdLows[slot] == low && recent[slot].profile().traceId().equals(traceId)) {
        slots.add(slot);
      }
    }
    return slots.isEmpty() ? Optional.empty()
        : Optional.of(found(slots, recent, originalAt));
  }

  /**
   * The largest of a trace's fragments, kept in {@code slots} (ties: the earliest), with its
   * original spans, and the others, oldest first.
   */
  private static Found found(List<Integer> slots, Recent[] recent, long[] originalAt) {
    int shown = slots.get(0);
    for (int slot : slots) {
      if (recent[slot].profile().spanCount() > recent[shown].profile().spanCount()) {
        shown = slot;
      }
    }
    List<Recent> others = new ArrayList<>();
    for (int slot : slots) {
      if (slot != shown) {
        others.add(recent[slot]);
      }
    }
    return new Found(recent[shown], others, originalAt[shown]);
  }

  /**
   * The kept traces that match, one row per trace id, newest (by the analysis of the fragment
   * shown) or slowest first: at most {@code query.limit()}, after the first {@code
   * query.offset()}.
   */
  List<TraceSummary> search(TraceQuery query) {
    Recent[] snapshot;
    long[] snapshotOriginals;
    long newest;
    synchronized (this) {
      snapshot = recent.clone();
      snapshotOriginals = originalAt.clone();
      newest = kept;
    }
    long oldest = Math.max(0, newest - snapshot.length);
    Map<TraceId, List<Integer>> byTrace = new HashMap<>();
    for (long position = oldest; position < newest; position++) {
      int slot = (int) (position % snapshot.length);
      byTrace.computeIfAbsent(snapshot[slot].profile().traceId(), unused -> new ArrayList<>(1))
          .add(slot);
    }
    // The rows before the page and the page's own.
    long wanted = (long) query.offset() + query.limit();
    Comparator<TraceSummary> faster = SLOWEST.reversed();
    PriorityQueue<TraceSummary> slowest = new PriorityQueue<>(faster);
    List<TraceSummary> result = new ArrayList<>();
    for (long position = newest - 1; position >= oldest; position--) {
      int slot = (int) (position % snapshot.length);
      Recent entry = snapshot[slot];
      List<Integer> fragments = byTrace.get(entry.profile().traceId());
      Found trace = fragments.size() == 1
          ? new Found(entry, List.of(), snapshotOriginals[slot])
          : found(fragments, snapshot, snapshotOriginals);
      if (trace.shown() != entry) {
        continue; // the row is made where the fragment shown was kept
      }
      TraceSummary summary = trace.summary();
      if (!query.matches(summary, entry.profile().distinctOperations())
          || !query.matchesAttributes(() -> originals.read(trace.originalAt()))) {
        continue;
      }
      if (!query.slowest()) {
        result.add(summary);
        if (result.size() == wanted) {
          break;
        }
      } else {
        slowest.add(summary);
        if (slowest.size() > wanted) {
          slowest.poll();
        }
      }
    }
    if (query.slowest()) {
      result.addAll(slowest);
      result.sort(SLOWEST);
    }
    return List.copyOf(result.subList(Math.min(query.offset(), result.size()), result.size()));
  }
}
