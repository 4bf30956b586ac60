package dev.spanprof.api;

import dev.spanprof.analysis.distribution.DistributionRegistry.Kind;
import dev.spanprof.span.Operation;
import dev.spanprof.stages.DistributionService;
import dev.spanprof.stages.PoolService;
import dev.spanprof.stages.RankingService;
import dev.spanprof.stages.TailService;
import dev.spanprof.time.TimeSource;
import dev.spanprof.v1.GetStateRequest;
import dev.spanprof.v1.State;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Set;

/** This process's additive state (state.proto), as much of it as a request asks for. */
@Singleton
final class LocalState {

  static final List<String> PARTS = List.of("ranking", "tail", "distribution", "pools", "traces");
  /** The kinds the query API answers for an operation (GET /api/v1/distributions). */
  private static final List<Kind> DISTRIBUTION_KINDS =
      List.of(Kind.DURATION, Kind.SELF_TIME, Kind.CRITICAL_PATH);

  private final RankingService ranking;
  private final TailService tail;
  private final DistributionService distributions;
  private final PoolService pools;
  private final RecentProfiles profiles;
  private final TimeSource time;

  LocalState(RankingService ranking, TailService tail, DistributionService distributions,
      PoolService pools, RecentProfiles profiles, TimeSource time) {
    this.ranking = ranking;
    this.tail = tail;
    this.distributions = distributions;
    this.pools = pools;
    this.profiles = profiles;
    this.time = time;
  }

  /**
   * The parts asked for (all when none is); with an operation named, its ranking, tail and
   * distribution of the kind asked, else every operation's; the recent traces those matching
   * {@code traces}.
   *
   * @throws IllegalArgumentException for an unknown part
   */
  State read(GetStateRequest request, TraceQuery traces) {
    Set<String> parts = Set.copyOf(request.getPartsList().isEmpty() ? PARTS
        : request.getPartsList());
    for (String part : parts) {
      if (!PARTS.contains(part)) {
        throw new IllegalArgumentException("part must be one of " + PARTS + ", got '" + part + "'");
      }
    }
    Operation operation = request.getService().isEmpty() && request.getOperation().isEmpty()
        ? null : new Operation(request.getService(), request.getOperation());
    long asOfNanos = request.getAsOfEpochNanos() != 0 ? request.getAsOfEpochNanos()
        : time.epochNanos();
    StateProtos.Writer state = new StateProtos.Writer(asOfNanos);
    if (parts.contains("ranking")) {
      state.ranking(ranking.state(operation, asOfNanos, request.getSummed()));
    }
    if (parts.contains("tail")) {
      state.tail(tail.state(operation, asOfNanos, request.getSummed()));
    }
    if (parts.contains("distribution")) {
      Kind asked = switch (request.getKind()) {
        case DISTRIBUTION_KIND_SELF_TIME -> Kind.SELF_TIME;
        case DISTRIBUTION_KIND_CRITICAL_PATH -> Kind.CRITICAL_PATH;
        default -> Kind.DURATION;
      };
      for (Kind kind : operation != null ? List.of(asked) : DISTRIBUTION_KINDS) {
        for (Operation named : operation != null ? List.of(operation)
            : distributions.operations(kind)) {
          distributions.merged(kind, named.service(), named.name())
              .ifPresent(merged -> state.distribution(kind, named, merged));
        }
      }
    }
    if (parts.contains("pools")) {
      state.pools(pools.recent());
    }
    if (parts.contains("traces")) {
      state.traces(profiles.search(traces));
    }
    return state.build();
  }
}
