package dev.spanprof.api;

import dev.spanprof.analysis.span.TraceId;
import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.config.QueryConfiguration;
import dev.spanprof.profile.ProfileConsumer;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.PriorityQueue;

/**
 * The profiles of the last {@code spanprof.query.recent-traces} analyses, each with what its row
 * in the list of recent traces needs; the oldest is forgotten first. A trace analysed again (a
 * late fragment) answers with its latest profile, and is listed once per analysis.
 *
 * <p>A ring, not a map by trace id: keeping a profile is then one store into a slot next to the
 * previous one, where a linked map's removal and insertion each touched entries of traces
 * analysed long ago, out of the core's caches ({@code PipelineBenchmark} from memory). A query instead
 * scans the ids, newest first: about 10 µs for 10 000 profiles, and queries are rare. An earlier
 * profile of a trace analysed again keeps its slot until the ring comes round to it.
 *
 * <p>The list of recent traces needs no index of its own: a search makes each kept trace's summary
 * row as it scans them, newest first, and keeps the slowest matches in a heap of {@code limit}:
 * O(kept · log limit), a few milliseconds for 10 000 kept. Summaries are made when asked for, not
 * when a trace is kept: keeping is on the analysis stage's path ({@code PipelineBenchmark}).
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
   */
  record Recent(TraceProfile profile, String completion, boolean complete) {

    TraceSummary summary() {
      return TraceSummary.of(profile, completion, complete);
    }
  }

  RecentProfiles(QueryConfiguration configuration) {
    this.recent = new Recent[configuration.getRecentTraces()];
    this.traceIdLows = new long[recent.length];
  }

  @Override
  public void accept(CompletedTrace trace, TraceProfile profile, long nowNanos) {
    TraceProfile withoutSegments = profile.withoutSegments();
    int root = profile.primaryRoot();
    Recent entry = new Recent(withoutSegments, trace.completion().label(),
        root >= 0 && trace.isComplete(trace.spans().get(root)));
    synchronized (this) {
      int slot = (int) (kept++ % recent.length);
      recent[slot] = entry;
      traceIdLows[slot] = withoutSegments.traceId().low();
    }
  }

  public Optional<TraceProfile> get(TraceId traceId) {
    return find(traceId).map(Recent::profile);
  }

  synchronized Optional<Recent> find(TraceId traceId) {
    long low = traceId.low();
    long oldest = Math.max(0, kept - recent.length);
    for (long position = kept - 1; position >= oldest; position--) {
      int slot = (int) (position % recent.length);
      if (traceIdLows[slot] == low && recent[slot].profile().traceId().equals(traceId)) {
        return Optional.of(recent[slot]);
      }
    }
    return Optional.empty();
  }

  /** The kept traces that match, newest or slowest first, at most {@code query.limit()}. */
  List<TraceSummary> search(TraceQuery query) {
    Recent[] snapshot;
    long newest;
    synchronized (this) {
      snapshot = recent.clone();
      newest = kept;
    }
    long oldest = Math.max(0, newest - snapshot.length);
    Comparator<TraceSummary> faster = Comparator.comparingLong(TraceSummary::ttcNs);
    PriorityQueue<TraceSummary> slowest = new PriorityQueue<>(faster);
    List<TraceSummary> result = new ArrayList<>();
    for (long position = newest - 1; position >= oldest; position--) {
      Recent entry = snapshot[(int) (position % snapshot.length)];
      TraceSummary summary = entry.summary();
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
      result.sort(faster.reversed());
    }
    return result;
  }
}
