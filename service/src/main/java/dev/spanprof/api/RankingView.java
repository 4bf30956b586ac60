package dev.spanprof.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.spanprof.analysis.ranking.RankingSnapshot.EdgeRow;
import dev.spanprof.analysis.ranking.RankingSnapshot.Row;
import dev.spanprof.analysis.span.Operation;
import io.micronaut.serde.annotation.Serdeable;
import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.AbstractHistogram;

/**
 * JSON rows of the call ranking (contract.md: {@code GET /api/v1/ranking}); times in ns. The p50
 * and p99 come from the duration distribution's sliding window ({@code spanprof.histogram.window}),
 * 0 when the operation has none, and never exceed the row's exact maximum: HdrHistogram reports
 * the top of a value's 1 % bucket, which may lie above every value recorded.
 */
final class RankingView {

  private RankingView() {}

  @Serdeable
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record RankingRow(
      String service,
      String name,
      int rank,
      double involvement,
      long count,
      long errorCount,
      double durationMeanNs,
      long durationMinNs,
      long durationMaxNs,
      double durationStddevNs,
      long durationP50Ns,
      long durationP99Ns,
      double selfTimeMeanNs,
      long selfTimeMinNs,
      long selfTimeMaxNs,
      double selfTimeStddevNs,
      long selfTimeTotalNs,
      long criticalPathNs,
      double criticalPathShare,
      List<String> flags) {

    /**
     * @param durationWindow the operation's duration distribution over the sliding window (the
     *     p50 and p99 come from it), or null when it has none
     */
    static RankingRow of(Row row, AbstractHistogram durationWindow) {
      boolean known = durationWindow != null && durationWindow.getTotalCount() > 0;
      List<String> flags = new ArrayList<>(2);
      if (row.dispatcher()) {
        flags.add("dispatcher");
      }
      if (row.bottleneck()) {
        flags.add("bottleneck");
      }
      return new RankingRow(row.operation().service(), row.operation().name(), row.rank(),
          row.involvement(), row.count(), row.errorCount(), row.durationMeanNs(),
          row.durationMinNs(),
          row.durationMaxNs(), row.durationStddevNs(),
          known ? Math.min(durationWindow.getValueAtPercentile(50), row.durationMaxNs()) : 0,
          known ? Math.min(durationWindow.getValueAtPercentile(99), row.durationMaxNs()) : 0,
          row.selfTimeMeanNs(), row.selfTimeMinNs(),
          row.selfTimeMaxNs(), row.selfTimeStddevNs(), row.selfTimeTotalNs(), row.criticalPathNs(),
          row.criticalPathShare(), flags);
    }
  }

  /** One neighbour of an operation and the figures of the calls between them. */
  @Serdeable
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record Neighbour(
      String service, String name, long count, double calleeDurationMeanNs,
      long calleeDurationMaxNs) {

    static Neighbour of(Operation other, EdgeRow edge) {
      return new Neighbour(other.service(), other.name(), edge.count(),
          edge.calleeDurationMeanNs(), edge.calleeDurationMaxNs());
    }
  }

  @Serdeable
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record Edges(String service, String operation, List<Neighbour> callers, List<Neighbour> callees) {}
}
