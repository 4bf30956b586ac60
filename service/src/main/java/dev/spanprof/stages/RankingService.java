package dev.spanprof.stages;

import dev.spanprof.analysis.ranking.CallRanking;
import dev.spanprof.analysis.ranking.RankingSnapshot;
import dev.spanprof.analysis.ranking.RankingState;
import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.config.RankingConfiguration;
import dev.spanprof.span.Operation;
import dev.spanprof.time.TimeSource;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Provider;
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
  private final RankingConfiguration configuration;
  private final TimeSource time;
  private final List<RankingListener> listeners;
  /** Lazily: the fleet's ranking is merged by the API, which reads this service. */
  private final Provider<FleetRanking> fleet;
  private final Periodic refresher;
  private volatile RankingSnapshot latest = new RankingSnapshot(List.of(), List.of());

  RankingService(RankingConfiguration configuration, TimeSource time,
      List<RankingListener> listeners, Provider<FleetRanking> fleet) {
    try {
      this.ranking = new CallRanking(configuration.getWindow(), configuration.getEpsilon(),
          configuration.getMaxOperations());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "invalid " + RankingConfiguration.PREFIX + " configuration: " + e.getMessage(), e);
    }
    this.configuration = configuration;
    this.time = time;
    this.listeners = List.copyOf(listeners);
    this.fleet = fleet;
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

  /**
   * The additive state (semantics.md §7) of the window ending at {@code asOfNanos}, of {@code
   * root}'s traces or of all with null; with {@code summed}, its slices added up into one
   * (CallRanking#summedState).
   */
  public RankingState state(Operation root, long asOfNanos, boolean summed) {
    return summed ? ranking.summedState(asOfNanos, root) : ranking.state(asOfNanos, root);
  }

  /** The clock the window is cut by. */
  public long nowNanos() {
    return time.epochNanos();
  }

  /**
   * The ranking of the replicas' states merged, over {@code root}'s traces or all with null, as of
   * {@code asOfNanos}: what one process fed all their traces would rank (semantics.md §7).
   *
   * @throws IllegalArgumentException when a state's slices are of another length
   */
  public RankingSnapshot merge(List<RankingState> states, Operation root, long asOfNanos) {
    CallRanking fleet = new CallRanking(configuration.getWindow(), configuration.getEpsilon(),
        Integer.MAX_VALUE);
    states.forEach(fleet::merge);
    return fleet.snapshot(asOfNanos, root);
  }

  public long sliceNanos() {
    return ranking.sliceNanos();
  }

  /**
   * Recomputes now; the schedule does this every refresh interval. The listeners are told the
   * fleet's ranking when there are peers, this process's otherwise.
   */
  public RankingSnapshot refresh() {
    RankingSnapshot snapshot = ranking.snapshot(time.epochNanos());
    latest = snapshot;
    long overflow = ranking.overflowSpans();
    RankingSnapshot told = fleet.get().fleetRanking().orElse(snapshot);
    for (RankingListener listener : listeners) {
      listener.onRanking(told, overflow);
    }
    return snapshot;
  }

  @PreDestroy
  void stop() {
    refresher.stop();
  }
}
