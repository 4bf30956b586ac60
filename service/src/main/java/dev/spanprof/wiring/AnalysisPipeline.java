package dev.spanprof.wiring;

import dev.spanprof.analysis.trace.TraceAnalyzer;
import dev.spanprof.api.RecentProfiles;
import dev.spanprof.assembly.TraceSink;
import dev.spanprof.export.EnrichedForwarding;
import dev.spanprof.metrics.AnalysisMeters;
import dev.spanprof.stages.AnalysisStage;
import dev.spanprof.stages.DistributionService;
import dev.spanprof.stages.PoolService;
import dev.spanprof.stages.ProfileConsumer;
import dev.spanprof.stages.RankingService;
import dev.spanprof.stages.TailService;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.List;

/**
 * Every stage of an analysed trace's life after its analysis, in the order each trace passes
 * them: the place to read to know what happens to a trace, and to add a stage.
 */
@Factory
final class AnalysisPipeline {

  /**
   * The analysis stage, then in order:
   *
   * <ol>
   *   <li>the counters of /metrics ({@link AnalysisMeters});
   *   <li>the distributions, whose percentile ranks the enrichment reads;
   *   <li>the call ranking, the tail, the pools: what the API derives across traces;
   *   <li>the recent profiles the API and UI answer with;
   *   <li>enriched forwarding, last: it takes the trace's spans over, and may hold the analysis
   *       back ({@link ProfileConsumer#hasRoomFor}) while the next hop is slow (pass-through
   *       forwarding takes the spans at ingest instead).
   * </ol>
   *
   * Any other consumer (a test's) comes after them.
   */
  @Singleton
  TraceSink analysisStage(TraceAnalyzer analyzer, AnalysisMeters meters,
      DistributionService distributions, RankingService ranking, TailService tail,
      PoolService pools, RecentProfiles recent, EnrichedForwarding forwarding,
      List<ProfileConsumer> every) {
    List<ProfileConsumer> stages = new ArrayList<>(List.of(meters, distributions, ranking, tail,
        pools, recent, forwarding));
    every.stream().filter(consumer -> !stages.contains(consumer)).forEach(stages::add);
    return new AnalysisStage(analyzer, ProfileConsumer.composite(stages));
  }
}
