package dev.spanprof.metrics;

import dev.spanprof.analysis.ranking.RankingSnapshot;
import dev.spanprof.config.RankingConfiguration;
import dev.spanprof.stages.RankingListener;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import jakarta.inject.Singleton;
import java.util.concurrent.atomic.AtomicLong;

/**
 * spanprof_involvement_ratio{service_name, span_name} for the top {@code spanprof.ranking.
 * export-top} operations, replaced at every refresh (operations that drop out disappear), and
 * spanprof_ranking_overflow_spans_total, spans folded into the overflow operation.
 */
@Singleton
final class RankingMeters implements RankingListener {

  private final MultiGauge involvement;
  private final int exportTop;
  private final AtomicLong overflow = new AtomicLong();

  RankingMeters(MeterRegistry registry, RankingConfiguration configuration) {
    this.involvement = MultiGauge.builder("spanprof.involvement")
        .description("Call-ranking stationary probability of the top operations")
        .baseUnit("ratio")
        .register(registry);
    this.exportTop = configuration.getExportTop();
    FunctionCounter.builder(
            "spanprof.ranking.overflow.spans", overflow, AtomicLong::doubleValue)
        .description("Spans counted under the overflow operation (spanprof.ranking.max-operations)")
        .register(registry);
  }

  @Override
  public void onRanking(RankingSnapshot snapshot, long overflowSpans) {
    overflow.set(overflowSpans);
    involvement.register(snapshot.top(exportTop, RankingSnapshot.Sort.INVOLVEMENT).stream()
        .map(row -> MultiGauge.Row.of(
            Tags.of("service_name", row.operation().service(), "span_name", row.operation().name()),
            row.involvement()))
        .toList(), true);
  }
}
