package dev.spanprof.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.spanprof.analysis.ranking.RankingSnapshot.EdgeRow;
import dev.spanprof.analysis.ranking.RankingSnapshot.Row;
import dev.spanprof.span.Operation;
import io.micronaut.serde.annotation.Serdeable;
import java.util.ArrayList;
import java.util.List;

/**
 * JSON rows of the call ranking (contract.md: {@code GET /api/v1/ranking}); times in ns. Every
 * figure of a row, its p50 and p99 included, covers the same traces (semantics.md §4).
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

    static RankingRow of(Row row) {
      List<String> flags = new ArrayList<>(2);
      if (row.dispatcher()) {
        flags.add("dispatcher");
      }
      if (row.bottleneck()) {
        flags.add("bottleneck");
      }
      return new RankingRow(row.operation().service(), row.operation().name(), row.rank(),
          row.involvement(), row.count(), row.errorCount(), row.durationMeanNs(),
          row.durationMinNs(), row.durationMaxNs(), row.durationStddevNs(), row.durationP50Ns(),
          row.durationP99Ns(), row.selfTimeMeanNs(), row.selfTimeMinNs(), row.selfTimeMaxNs(),
          row.selfTimeStddevNs(), row.selfTimeTotalNs(), row.criticalPathNs(),
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
  record Edges(String service, String operation, List<Neighbour> callers, List<Neighbour> callees,
      List<String> missingPeers) {}

  /** Calls from one operation to another: how many, and how long the callee took. */
  @Serdeable
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record Call(
      String callerService, String callerName, String calleeService, String calleeName,
      long count, double calleeDurationMeanNs, long calleeDurationMaxNs) {

    static Call of(EdgeRow edge) {
      return new Call(edge.caller().service(), edge.caller().name(), edge.callee().service(),
          edge.callee().name(), edge.count(), edge.calleeDurationMeanNs(),
          edge.calleeDurationMaxNs());
    }
  }

  /** The call graph: the ranking's rows, best first by involvement, and its calls. */
  @Serdeable
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record Graph(List<RankingRow> nodes, List<Call> calls, List<String> missingPeers) {}
}
