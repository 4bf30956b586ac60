package dev.spanprof.api;

import dev.spanprof.analysis.distribution.DistributionRegistry.Kind;
import dev.spanprof.analysis.ranking.RankingSnapshot;
import dev.spanprof.analysis.tail.TailBreakdown;
import dev.spanprof.analysis.tail.TailRoot;
import dev.spanprof.span.Operation;
import dev.spanprof.stages.DistributionService;
import dev.spanprof.stages.PoolService;
import dev.spanprof.stages.RankingService;
import dev.spanprof.stages.TailService;
import jakarta.inject.Singleton;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the query endpoints answer, JSON and gRPC alike: with peers the fleet's ({@link Fleet}),
 * else, or when the asker wants one replica's own share ({@code local}), this process's.
 */
@Singleton
final class Answers {

  private final Fleet fleet;
  private final RankingService ranking;
  private final TailService tail;
  private final DistributionService distributions;
  private final PoolService pools;
  private final RecentProfiles profiles;

  Answers(Fleet fleet, RankingService ranking, TailService tail,
      DistributionService distributions, PoolService pools, RecentProfiles profiles) {
    this.fleet = fleet;
    this.ranking = ranking;
    this.tail = tail;
    this.distributions = distributions;
    this.pools = pools;
    this.profiles = profiles;
  }

  /** Whether an HTTP query's {@code scope} asks for this process's own share. */
  static boolean local(String scope) {
    return "local".equals(scope);
  }

  /** The ranking over {@code root}'s traces, or over all with null (the last refresh's). */
  Fleet.Answer<RankingSnapshot> ranking(Operation root, boolean local) {
    if (fleet.answers(local)) {
      return fleet.ranking(root);
    }
    return own(root == null ? ranking.latest() : ranking.forRoot(root));
  }

  Fleet.Answer<List<TailRoot>> tailRoots(boolean local) {
    return fleet.answers(local) ? fleet.tailRoots() : own(tail.roots());
  }

  Fleet.Answer<Optional<TailBreakdown>> tailBreakdown(Operation root, double quantile,
      boolean local) {
    return fleet.answers(local) ? fleet.tailBreakdown(root, quantile)
        : own(tail.breakdown(root, quantile));
  }

  Fleet.Answer<Optional<DistributionService.Merged>> distribution(Kind kind,
      Operation operation, boolean local) {
    return fleet.answers(local) ? fleet.distribution(kind, operation)
        : own(distributions.merged(kind, operation.service(), operation.name()));
  }

  /** The final windows per pool, oldest first. */
  Fleet.Answer<Map<String, List<PoolsController.Window>>> pools(boolean local) {
    if (fleet.answers(local)) {
      return fleet.pools();
    }
    Map<String, List<PoolsController.Window>> windows = new LinkedHashMap<>();
    pools.recent().forEach((pool, recent) ->
        windows.put(pool, recent.stream().map(PoolsController.Window::of).toList()));
    return own(windows);
  }

  Fleet.Answer<List<TraceSummary>> traces(TraceQuery query, boolean local) {
    return fleet.answers(local) ? fleet.traces(query) : own(profiles.search(query));
  }

  private static <T> Fleet.Answer<T> own(T value) {
    return new Fleet.Answer<>(value, List.of());
  }
}
