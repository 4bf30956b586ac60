package dev.spanprof.stages;

import dev.spanprof.analysis.ranking.CallRanking;
import dev.spanprof.analysis.ranking.RankingSnapshot;
import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.config.RankingConfiguration;
import dev.spanprof.span.Operation;
import dev.spanprof.time.TimeSource;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.util.List;

/**
 * Feeds every analysed trace into the {@link CallRanking} and recomputes the ranking every
 * {@code spanprof.ranking.refresh} on a thread of its own, so neither ingest nor the analysis
 * workers ever wait for the power iteration. Queries read the latest ranking. Its window is cut
 * in epoch time and each trace counted in the slice of its arrival (semantics.md §7).
 */
@Singleton
public final class RankingService implements ProfileConsumer {

  private final CallRanking ranking;
  private final TimeSource time;
  private final List<RankingListener> listeners;
  private final Periodic refresher;
  private volatile RankingSnapshot latest = new RankingSnapshot(List.of(), List.of());

  RankingService(
      RankingConfiguration configuration, TimeSource time, List<RankingListener> listeners) {
    try {
      this.ranking = new CallRanking(configuration.getWindow(), configuration.getEpsilon(),
          configuration.getMaxOperations());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "invalid " + RankingConfiguration.PREFIX + " configuration: " + e.getMessage(), e);
    }
    this.time = time;
    this.listeners = List.copyOf(listeners);
    this.refresher = Periodic.start("spanprof-ranking", configuration.getRefresh(), this::refresh);
  }

  @Override
  public void accept(CompletedTrace trace, TraceProfile profile, long arrivalNanos) {
    if (trace.fragment()) {
      ranking.addLateFragment(trace.spans(), profile, arrivalNanos);
    } else {
      ranking.add(trace.spans(), profile, arrivalNanos);
    }
  }

  /** The most recently computed ranking. */
  public RankingSnapshot latest() {
    return latest;
  }

  /**
   * The ranking over the traces whose primary root is {@code root}, computed now: asked for
   * rarely, and the power iteration over one root's operations is small.
   */
  public RankingSnapshot forRoot(Operation root) {
    return ranking.snapshot(time.epochNanos(), root);
  }

  /** Recomputes now; the schedule does this every refresh interval. */
  public RankingSnapshot refresh() {
    RankingSnapshot snapshot = ranking.snapshot(time.epochNanos());
    latest = snapshot;
    long overflow = ranking.overflowSpans();
    for (RankingListener listener : listeners) {
      listener.onRanking(snapshot, overflow);
    }
    return snapshot;
  }

  @PreDestroy
  void stop() {
    refresher.stop();
  }
}
