package dev.spanprof.stages;

import dev.spanprof.analysis.ranking.RankingSnapshot;
import java.util.Optional;

/**
 * The ranking of a fleet of replicas ({@code spanprof.query.peers}), which the exported gauges
 * follow instead of this process's own when there is one: every replica then exports the same
 * figures, one line per operation on a dashboard rather than one per replica.
 */
public interface FleetRanking {

  /** The fleet's ranking over all traces; empty without peers. */
  Optional<RankingSnapshot> fleetRanking();
}
