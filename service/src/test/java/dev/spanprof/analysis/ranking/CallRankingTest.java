package dev.spanprof.analysis.ranking;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.spanprof.analysis.ranking.RankingSnapshot.Row;
import dev.spanprof.analysis.ranking.RankingSnapshot.Sort;
import dev.spanprof.analysis.trace.TraceBuilder;
import dev.spanprof.span.Operation;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class CallRankingTest {

  private static final Duration WINDOW = Duration.ofMinutes(5);

  /** A caller and k callees, each called once: k calls out and k returns back. */
  private static TraceBuilder star(int k) {
    TraceBuilder trace = new TraceBuilder().span("caller", null, "0", 0, 100);
    for (int i = 0; i < k; i++) {
      trace.span("callee" + i, "caller", "1", i * 10, i * 10 + 5);
    }
    return trace;
  }

  private static Map<String, Double> involvement(CallRanking ranking) {
    return ranking.snapshot(0).rows().stream()
        .collect(Collectors.toMap(row -> row.operation().name(), Row::involvement));
  }

  private static CallRanking rank(double epsilon, TraceBuilder... traces) {
    CallRanking ranking = new CallRanking(WINDOW, epsilon, 5000);
    for (TraceBuilder trace : traces) {
      ranking.add(trace.spans(), trace.analyze(), 0);
    }
    return ranking;
  }

  @Test
  void star_finiteEpsilon_equalsTheClosedForm() {
    int k = 4;
    double epsilon = 0.1;
    int n = k + 1;
    // π_c = (1−ε)·Σ π_i + ε/N and π_i = (1−ε)·π_c/k + ε/N, with Σ π = 1.
    double caller = (1 - k * epsilon / n) / (2 - epsilon);
    double callee = (1 - epsilon) * caller / k + epsilon / n;

    Map<String, Double> pi = involvement(rank(epsilon, star(k)));

    assertThat(pi.get("caller")).isCloseTo(caller, within(1e-10));
    assertThat(pi.get("callee0")).isCloseTo(callee, within(1e-10));
  }

  @Test
  void star_epsilonToZero_halfForTheCallerAndOneOver2kEach() {
    int k = 7;

    Map<String, Double> pi = involvement(rank(1e-6, star(k)));

    assertThat(pi.get("caller")).isCloseTo(0.5, within(1e-5));
    for (int i = 0; i < k; i++) {
      assertThat(pi.get("callee" + i)).isCloseTo(1.0 / (2 * k), within(1e-5));
    }
  }

  /** A calls B calls C: degrees 1, 2, 1, so π = 1/4, 1/2, 1/4. */
  @Test
  void chain_stationaryDistributionByDegree() {
    TraceBuilder chain = new TraceBuilder()
        .span("A", null, "0", 0, 30).span("B", "A", "1", 5, 25).span("C", "B", "2", 10, 20);

    Map<String, Double> pi = involvement(rank(1e-6, chain));

    assertThat(pi.get("A")).isCloseTo(0.25, within(1e-5));
    assertThat(pi.get("B")).isCloseTo(0.5, within(1e-5));
    assertThat(pi.get("C")).isCloseTo(0.25, within(1e-5));
  }

  /** A calls B calls C calls A again (recursion through three operations): 1/3 each. */
  @Test
  void cycle_uniform() {
    TraceBuilder cycle = new TraceBuilder()
        .span("A", null, "0", 0, 40).span("B", "A", "1", 5, 35).span("C", "B", "2", 10, 30)
        .span("A#2", "C", "3", 15, 25);

    Map<String, Double> pi = involvement(rank(1e-6, cycle));

    assertThat(pi.values()).allSatisfy(value -> assertThat(value).isCloseTo(1.0 / 3, within(1e-5)));
  }

  /**
   * A cheap dispatcher fans out to ten workers; one slow worker holds the critical path.
   * <pre>
   *   dispatch |=================================|  [0,1000)
   *   fast×9   |===|                                [0,100) each on its own thread
   *   slow     |================================|   [0,990)
   * </pre>
   */
  @Test
  void fleet_dispatcherFirstByInvolvement_slowWorkerFirstByCriticalPath() {
    CallRanking ranking = new CallRanking(WINDOW, 1e-6, 5000);
    for (int trace = 0; trace < 20; trace++) {
      TraceBuilder fleet = new TraceBuilder().span("dispatch", null, "d", 0, 1000);
      for (int i = 0; i < 9; i++) {
        fleet.span("fast" + i, "dispatch", "w" + i, 0, 100);
      }
      fleet.span("slow", "dispatch", "s", 0, 990);
      ranking.add(fleet.spans(), fleet.analyze(), 0);
    }

    RankingSnapshot snapshot = ranking.snapshot(0);

    Row first = snapshot.top(1, Sort.INVOLVEMENT).get(0);
    assertThat(first.operation().name()).isEqualTo("dispatch");
    assertThat(first.rank()).isEqualTo(1);
    assertThat(first.dispatcher()).isTrue();
    assertThat(first.bottleneck()).isFalse();
    assertThat(first.count()).isEqualTo(20);
    assertThat(first.selfTimeMeanNs()).isEqualTo(10);
    Row critical = snapshot.top(1, Sort.CRITICAL_PATH).get(0);
    assertThat(critical.operation().name()).isEqualTo("slow");
    assertThat(critical.criticalPathShare()).isCloseTo(0.99, within(1e-12));
    assertThat(critical.bottleneck()).isTrue();
    assertThat(critical.dispatcher()).isFalse();
    assertThat(snapshot.top(1, Sort.SELF_TIME).get(0).operation().name()).isEqualTo("slow");
    assertThat(snapshot.callees(new Operation("svc", "dispatch"))).hasSize(10)
        .allSatisfy(edge -> assertThat(edge.count()).isEqualTo(20));
    assertThat(snapshot.callers(new Operation("svc", "slow"))).singleElement().satisfies(edge -> {
      assertThat(edge.caller().name()).isEqualTo("dispatch");
      assertThat(edge.calleeDurationMeanNs()).isEqualTo(990);
      assertThat(edge.calleeDurationMaxNs()).isEqualTo(990);
    });
  }

  /**
   * Two roots overlapping (the README's seed case 3 has such): only the primary root's tree counts
   * for the critical-path share, so the shares sum to 1; the second root's tree adds none.
   */
  @Test
  void criticalPathShare_secondRootsTreeLeftOut_sharesSumToOne() {
    TraceBuilder trace = new TraceBuilder()
        .span("first", null, "1", 0, 100)
        .span("work", "first", "1", 10, 90)
        .span("second", null, "2", 50, 400)
        .span("other", "second", "2", 60, 390);

    RankingSnapshot snapshot = rank(1e-6, trace).snapshot(0);

    Map<String, Double> shares = snapshot.rows().stream()
        .collect(Collectors.toMap(row -> row.operation().name(), Row::criticalPathShare));
    assertThat(shares.values().stream().mapToDouble(Double::doubleValue).sum())
        .isCloseTo(1, within(1e-12));
    assertThat(shares).containsEntry("first", 0.2).containsEntry("work", 0.8)
        .containsEntry("second", 0.0).containsEntry("other", 0.0);
  }

  /**
   * A shop whose checkout waits 62 % of its time on db.query, beside one hour-long batch: over
   * all traces the batch drowns the shop; over the checkout's own traces db.query is 62 %.
   */
  @Test
  void criticalPathShare_perRootOperation_overThatRootsTracesOnly() {
    CallRanking ranking = new CallRanking(WINDOW, 1e-6, 5000);
    for (int t = 0; t < 10; t++) {
      TraceBuilder shop = new TraceBuilder().span("checkout", null, "1", 0, 100)
          .span("db.query", "checkout", "1", 20, 82);
      ranking.add(shop.spans(), shop.analyze(), 0);
    }
    TraceBuilder batch = new TraceBuilder().span("batch", null, "b", 0, 3_600_000)
        .span("db.query", "batch", "b", 0, 1000);
    ranking.add(batch.spans(), batch.analyze(), 0);

    Row overAll = row(ranking.snapshot(0), "db.query");
    Row overCheckout = row(ranking.snapshot(0, new Operation("svc", "checkout")), "db.query");

    assertThat(overAll.criticalPathShare()).isCloseTo(1620.0 / 3_601_000, within(1e-12));
    assertThat(overAll.count()).isEqualTo(11);
    assertThat(overCheckout.criticalPathShare()).isCloseTo(0.62, within(1e-12));
    assertThat(overCheckout.count()).as("every figure over the same traces").isEqualTo(10);
    assertThat(ranking.snapshot(0, new Operation("svc", "checkout")).rows())
        .extracting(r -> r.operation().name()).containsExactlyInAnyOrder("checkout", "db.query");
    assertThat(ranking.snapshot(0, new Operation("svc", "nothing")).rows()).isEmpty();
  }

  /** A late fragment's spans count, but it is no trace: no share, no root of its own. */
  @Test
  void lateFragment_spansCounted_noCriticalPathShareAndNoRoot() {
    CallRanking ranking = new CallRanking(WINDOW, 1e-6, 5000);
    TraceBuilder whole = new TraceBuilder().span("consume", null, "1", 0, 100);
    TraceBuilder late = new TraceBuilder().span("callback", null, "2", 500, 900);
    ranking.add(whole.spans(), whole.analyze(), 0);
    ranking.addLateFragment(late.spans(), late.analyze(), 0);

    RankingSnapshot all = ranking.snapshot(0);

    assertThat(row(all, "callback").count()).isEqualTo(1);
    assertThat(row(all, "callback").criticalPathShare()).isZero();
    assertThat(row(all, "consume").criticalPathShare()).isEqualTo(1.0);
    assertThat(ranking.snapshot(0, new Operation("svc", "callback")).rows()).isEmpty();
  }

  /**
   * A row's quantiles cover its traces, as its count does: once the early, slow traces leave the
   * window, p50 and p99 are those of the later ones (semantics.md §4: one row, one window).
   */
  @Test
  void quantiles_coverTheSameTracesAsTheCount() {
    long second = 1_000_000_000L;
    CallRanking ranking = new CallRanking(WINDOW, 1e-6, 5000);
    for (int t = 1; t <= 100; t++) {
      TraceBuilder slow = new TraceBuilder().span("query", null, "1", 0, t * 1_000_000L);
      ranking.add(slow.spans(), slow.analyze(), 0);
    }
    Row early = row(ranking.snapshot(10 * second), "query");
    for (int t = 0; t < 10; t++) {
      TraceBuilder fast = new TraceBuilder().span("query", null, "1", 0, 1000);
      ranking.add(fast.spans(), fast.analyze(), 280 * second);
    }

    Row late = row(ranking.snapshot(320 * second), "query");

    assertThat(early.count()).isEqualTo(100);
    assertThat(early.durationP50Ns()).isCloseTo(50_000_000L,
        org.assertj.core.data.Percentage.withPercentage(1));
    assertThat(early.durationP99Ns()).isCloseTo(99_000_000L,
        org.assertj.core.data.Percentage.withPercentage(1));
    assertThat(late.count()).isEqualTo(10);
    assertThat(late.durationP50Ns()).isEqualTo(1000);
    assertThat(late.durationP99Ns()).isEqualTo(1000);
  }

  @Test
  void errors_countedPerOperation() {
    TraceBuilder trace = new TraceBuilder().span("pay", null, "1", 0, 100)
        .failed("bank", "pay", "1", 10, 50)
        .failed("bank#2", "pay", "1", 60, 70)
        .span("bank#3", "pay", "1", 75, 80);

    RankingSnapshot snapshot = rank(1e-6, trace).snapshot(0);

    assertThat(row(snapshot, "bank").count()).isEqualTo(3);
    assertThat(row(snapshot, "bank").errorCount()).isEqualTo(2);
    assertThat(row(snapshot, "pay").errorCount()).isZero();
  }

  private static Row row(RankingSnapshot snapshot, String name) {
    return snapshot.rows().stream().filter(row -> row.operation().name().equals(name))
        .findFirst().orElseThrow();
  }

  @Test
  void edges_eachCallCountedUnderItsOwnCallerAndCallee_inTracesOfFewAndOfManyOperations() {
    // Three calls of one callee; then another pair of operations at the same positions in their
    // trace; then a trace of 18 operations, past the table add() finds edges through.
    TraceBuilder repeated = new TraceBuilder().span("a", null, "0", 0, 100)
        .span("b#1", "a", "1", 0, 10).span("b#2", "a", "1", 10, 30).span("b#3", "a", "1", 30, 60);
    TraceBuilder other = new TraceBuilder().span("c", null, "0", 0, 100).span("d", "c", "1", 0, 40);
    TraceBuilder wide = new TraceBuilder().span("e", null, "0", 0, 1000);
    for (int i = 0; i < 17; i++) {
      wide.span("f" + i, "e", "1", i * 10, i * 10 + 5);
    }
    wide.span("f0#2", "e", "2", 500, 507);

    RankingSnapshot snapshot = rank(1e-6, repeated, other, wide, repeated).snapshot(0);

    assertThat(snapshot.callees(new Operation("svc", "a"))).singleElement().satisfies(edge -> {
      assertThat(edge.callee().name()).isEqualTo("b");
      assertThat(edge.count()).isEqualTo(6);
      assertThat(edge.calleeDurationMeanNs()).isEqualTo(20);
      assertThat(edge.calleeDurationMaxNs()).isEqualTo(30);
    });
    assertThat(snapshot.callees(new Operation("svc", "c"))).singleElement().satisfies(edge -> {
      assertThat(edge.callee().name()).isEqualTo("d");
      assertThat(edge.count()).isEqualTo(1);
    });
    assertThat(snapshot.callees(new Operation("svc", "e"))).hasSize(17)
        .allSatisfy(edge -> assertThat(edge.count()).isEqualTo(edge.callee().name().equals("f0") ? 2 : 1));
    assertThat(snapshot.callers(new Operation("svc", "f0"))).singleElement().satisfies(edge ->
        assertThat(edge.calleeDurationMaxNs()).isEqualTo(7));
  }

  @Test
  void window_oldTracesAgeOutBucketByBucket() {
    CallRanking ranking = new CallRanking(Duration.ofSeconds(100), 1e-6, 5000);
    long second = 1_000_000_000L;
    TraceBuilder early = star(2);
    ranking.add(early.spans(), early.analyze(), 0);
    TraceBuilder later = new TraceBuilder().span("later", null, "0", 0, 10);
    ranking.add(later.spans(), later.analyze(), 50 * second);

    assertThat(ranking.snapshot(99 * second).rows()).hasSize(4);
    // At 100 s the first 10 s bucket has left the 100 s window; the later trace stays.
    assertThat(ranking.snapshot(100 * second).rows()).extracting(row -> row.operation().name())
        .containsExactly("later");
    assertThat(ranking.snapshot(150 * second).rows()).isEmpty();
  }

  /**
   * Traces complete out of arrival order (each waits out its own timeout): one added after a later
   * one still goes to the bucket of its arrival and ages out with it (semantics.md §7).
   */
  @Test
  void window_traceAddedAfterALaterOne_countsInTheBucketOfItsArrival() {
    CallRanking ranking = new CallRanking(Duration.ofSeconds(100), 1e-6, 5000);
    long second = 1_000_000_000L;
    TraceBuilder later = new TraceBuilder().span("later", null, "0", 0, 10);
    ranking.add(later.spans(), later.analyze(), 55 * second);
    TraceBuilder earlier = new TraceBuilder().span("earlier", null, "0", 0, 10);
    ranking.add(earlier.spans(), earlier.analyze(), 45 * second);

    assertThat(ranking.snapshot(139 * second).rows()).extracting(row -> row.operation().name())
        .containsExactlyInAnyOrder("later", "earlier");
    // At 140 s the bucket [40 s, 50 s) has left the window; [50 s, 60 s) has not.
    assertThat(ranking.snapshot(140 * second).rows()).extracting(row -> row.operation().name())
        .containsExactly("later");
  }

  @Test
  void maxOperations_excessFoldsIntoOverflowAndIsCounted() {
    CallRanking ranking = new CallRanking(WINDOW, 1e-6, 3);
    TraceBuilder trace = star(4);

    ranking.add(trace.spans(), trace.analyze(), 0);

    assertThat(ranking.snapshot(0).rows()).extracting(Row::operation)
        .contains(CallRanking.OVERFLOW).hasSize(4);
    assertThat(ranking.overflowSpans()).isEqualTo(2);
  }
}
