package dev.spanprof.analysis.ranking;

import dev.spanprof.span.Operation;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The call ranking at one moment: operations best first by involvement, with their static
 * figures, and every caller→callee edge with its conditional figures. Times are nanoseconds.
 */
public record RankingSnapshot(List<Row> rows, List<EdgeRow> edges) {

  /**
   * One operation.
   *
   * @param involvement its stationary probability π
   * @param rank 1 for the highest involvement
   * @param errorCount its spans with status ERROR
   * @param durationP50Ns the median duration, within 1 %, over the same traces as the rest
   * @param durationP99Ns the 99th percentile, likewise; neither above {@code durationMaxNs}
   * @param criticalPathNs Σ cp(o, T): its critical-path time in the primary roots' trees
   * @param criticalPathShare Σ cp(o, T) / Σ D(T) (semantics.md §4); the shares sum to 1
   * @param dispatcher involvement in the top decile (the best max(1, ⌊N/10⌋) rows) while mean
   *     self time is in the bottom half (at most the lower median)
   * @param bottleneck critical-path share positive and in the top decile
   */
  public record Row(
      Operation operation,
      double involvement,
      int rank,
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
      boolean dispatcher,
      boolean bottleneck) {

    Row ranked(int rank, boolean dispatcher, boolean bottleneck) {
      return new Row(operation, involvement, rank, count, errorCount, durationMeanNs,
          durationMinNs, durationMaxNs, durationStddevNs, durationP50Ns, durationP99Ns,
          selfTimeMeanNs, selfTimeMinNs, selfTimeMaxNs, selfTimeStddevNs, selfTimeTotalNs,
          criticalPathNs, criticalPathShare, dispatcher, bottleneck);
    }
  }

  /** Calls of {@code callee} by {@code caller}: how many, and how long the callee took. */
  public record EdgeRow(
      Operation caller, Operation callee, long count, double calleeDurationMeanNs,
      long calleeDurationMaxNs) {}

  /** How rows can be ordered, best first. */
  public enum Sort {
    INVOLVEMENT(Comparator.comparingDouble(Row::involvement).reversed()),
    CRITICAL_PATH(Comparator.comparingDouble(Row::criticalPathShare).reversed()),
    SELF_TIME(Comparator.comparingLong(Row::selfTimeTotalNs).reversed());

    private final Comparator<Row> order;

    Sort(Comparator<Row> order) {
      this.order = order.thenComparing(Row::rank);
    }

    /** {@code involvement}, {@code critical_path} or {@code self_time}; null when unknown. */
    public static Sort fromLabel(String label) {
      for (Sort sort : values()) {
        if (sort.name().toLowerCase(Locale.ROOT).equals(label)) {
          return sort;
        }
      }
      return null;
    }
  }

  /** Ranks the rows and sets their flags. */
  static RankingSnapshot of(List<Row> unranked, List<EdgeRow> edges) {
    int n = unranked.size();
    List<Row> byInvolvement = new ArrayList<>(unranked);
    byInvolvement.sort(Comparator.comparingDouble(Row::involvement).reversed()
        .thenComparing(row -> row.operation().service())
        .thenComparing(row -> row.operation().name()));
    // The top decile: the best tenth of the rows, rounded down, and at least the best one.
    int decile = Math.max(1, n / 10);
    double lowerMedianSelf = unranked.stream().mapToDouble(Row::selfTimeMeanNs).sorted()
        .skip((n - 1) / 2).findFirst().orElse(0);
    List<Double> shares = unranked.stream().map(Row::criticalPathShare)
        .sorted(Comparator.reverseOrder()).toList();
    double topDecileShare = n == 0 ? 0 : shares.get(decile - 1);
    List<Row> rows = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      Row row = byInvolvement.get(i);
      boolean dispatcher = i < decile && row.selfTimeMeanNs() <= lowerMedianSelf;
      boolean bottleneck = row.criticalPathShare() > 0 && row.criticalPathShare() >= topDecileShare;
      rows.add(row.ranked(i + 1, dispatcher, bottleneck));
    }
    List<EdgeRow> sortedEdges = new ArrayList<>(edges);
    sortedEdges.sort(Comparator.comparingLong(EdgeRow::count).reversed()
        .thenComparing(edge -> edge.caller().service() + '/' + edge.caller().name())
        .thenComparing(edge -> edge.callee().service() + '/' + edge.callee().name()));
    return new RankingSnapshot(List.copyOf(rows), List.copyOf(sortedEdges));
  }

  /** The first {@code top} rows in {@code sort} order. */
  public List<Row> top(int top, Sort sort) {
    return rows.stream().sorted(sort.order).limit(Math.max(0, top)).toList();
  }

  /** Edges into {@code operation}. */
  public List<EdgeRow> callers(Operation operation) {
    return edges.stream().filter(edge -> edge.callee().equals(operation)).toList();
  }

  /** Edges out of {@code operation}. */
  public List<EdgeRow> callees(Operation operation) {
    return edges.stream().filter(edge -> edge.caller().equals(operation)).toList();
  }
}
