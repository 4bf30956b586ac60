package dev.spanprof.api;

import dev.spanprof.analysis.TraceId;
import dev.spanprof.analysis.TraceProfile;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.config.QueryConfiguration;
import dev.spanprof.profile.ProfileConsumer;
import jakarta.inject.Singleton;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The profiles of the most recently analysed traces, at most {@code spanprof.query.recent-traces}
 * of them; the oldest is forgotten first. A trace analysed again (a late fragment) replaces its
 * earlier profile.
 */
@Singleton
public final class RecentProfiles implements ProfileConsumer {

  private final Map<TraceId, TraceProfile> profiles;

  RecentProfiles(QueryConfiguration configuration) {
    int capacity = configuration.getRecentTraces();
    this.profiles = new LinkedHashMap<>() {
      @Override
      protected boolean removeEldestEntry(Map.Entry<TraceId, TraceProfile> eldest) {
        return size() > capacity;
      }
    };
  }

  @Override
  public void accept(CompletedTrace trace, TraceProfile profile) {
    synchronized (profiles) {
      profiles.remove(trace.traceId());
      profiles.put(trace.traceId(), profile.withoutSegments());
    }
  }

  public Optional<TraceProfile> get(TraceId traceId) {
    synchronized (profiles) {
      return Optional.ofNullable(profiles.get(traceId));
    }
  }
}
