package dev.spanprof.api;

import dev.spanprof.analysis.span.TraceId;
import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.config.QueryConfiguration;
import dev.spanprof.profile.ProfileConsumer;
import jakarta.inject.Singleton;
import java.util.Optional;

/**
 * The profiles of the last {@code spanprof.query.recent-traces} analyses; the oldest is forgotten
 * first. A trace analysed again (a late fragment) answers with its latest profile.
 *
 * <p>A ring, not a map by trace id: keeping a profile is then one store into a slot next to the
 * previous one, where a linked map's removal and insertion each touched entries of traces
 * analysed long ago, out of the core's caches ({@code PipelineBenchmark} from memory). A query instead
 * scans the ids, newest first: about 10 µs for 10 000 profiles, and queries are rare. An earlier
 * profile of a trace analysed again keeps its slot until the ring comes round to it.
 */
@Singleton
public final class RecentProfiles implements ProfileConsumer {

  private final TraceProfile[] profiles;
  /** The low halves of the kept profiles' trace ids: a query reads these, not the profiles. */
  private final long[] traceIdLows;
  private long kept;

  RecentProfiles(QueryConfiguration configuration) {
    this.profiles = new TraceProfile[configuration.getRecentTraces()];
    this.traceIdLows = new long[profiles.length];
  }

  @Override
  public void accept(CompletedTrace trace, TraceProfile profile, long nowNanos) {
    TraceProfile withoutSegments = profile.withoutSegments();
    synchronized (this) {
      int slot = (int) (kept++ % profiles.length);
      profiles[slot] = withoutSegments;
      traceIdLows[slot] = withoutSegments.traceId().low();
    }
  }

  public synchronized Optional<TraceProfile> get(TraceId traceId) {
    long low = traceId.low();
    long oldest = Math.max(0, kept - profiles.length);
    for (long position = kept - 1; position >= oldest; position--) {
      int slot = (int) (position % profiles.length);
      if (traceIdLows[slot] == low && profiles[slot].traceId().equals(traceId)) {
        return Optional.of(profiles[slot]);
      }
    }
    return Optional.empty();
  }
}
