package dev.spanprof.analysis.ranking;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.spanprof.analysis.ranking.RankingSnapshot.EdgeRow;
import dev.spanprof.analysis.ranking.RankingSnapshot.Row;
import dev.spanprof.analysis.trace.TraceBuilder;
import dev.spanprof.span.Operation;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Semantics.md §7: three rankings fed disjoint whole traces, their states merged, rank exactly as
 * one fed all of them.
 */
class RankingStateTest {

  private static final Duration WINDOW = Duration.ofSeconds(100);
  private static final long SECOND = 1_000_000_000L;

  @Test
  void mergedStatesOfThreeReplicas_rankAsOneProcessFedAll() {
    CallRanking reference = new CallRanking(WINDOW, 1e-6, 5000);
    CallRanking[] replicas = {new CallRanking(WINDOW, 1e-6, 5000),
        new CallRanking(WINDOW, 1e-6, 5000), new CallRanking(WINDOW, 1e-6, 5000)};
    SplittableRandom random = new SplittableRandom(42);
    for (int i = 0; i < 600; i++) {
      TraceBuilder trace = trace(random);
      long arrival = i * 50_000_000L;
      reference.add(trace.spans(), trace.analyze(), arrival);
      replicas[i % 3].add(trace.spans(), trace.analyze(), arrival);
      if (i % 50 == 0) {
        TraceBuilder fragment = new TraceBuilder().span("cache.get", "lost", "t9", 0, 7);
        reference.addLateFragment(fragment.spans(), fragment.analyze(), arrival);
        replicas[(i + 1) % 3].addLateFragment(fragment.spans(), fragment.analyze(), arrival);
      }
    }
    long now = 30 * SECOND;

    for (Operation root : new Operation[] {null, new Operation("svc", "GET /cart"),
        new Operation("svc", "POST /order")}) {
      CallRanking fleet = new CallRanking(WINDOW, 1e-6, Integer.MAX_VALUE);
      CallRanking summed = new CallRanking(WINDOW, 1e-6, Integer.MAX_VALUE);
      for (CallRanking replica : replicas) {
        fleet.merge(replica.state(now, root));
        summed.merge(replica.summedState(now, root));
      }
      assertSameRanking(fleet.snapshot(now, root), reference.snapshot(now, root));
      assertSameRanking(summed.snapshot(now, root), reference.snapshot(now, root));
    }
  }

  @Test
  void state_keepsOnlyTheSlicesOfTheWindow() {
    CallRanking ranking = new CallRanking(WINDOW, 1e-6, 5000);
    TraceBuilder trace = new TraceBuilder().span("GET /cart", null, "t1", 0, 100);
    ranking.add(trace.spans(), trace.analyze(), 5 * SECOND);
    ranking.add(trace.spans(), trace.analyze(), 95 * SECOND);

    RankingState state = ranking.state(105 * SECOND, null);

    assertThat(state.sliceNanos()).isEqualTo(10 * SECOND);
    assertThat(state.slices()).extracting(RankingState.Slice::id).containsExactly(9L);
  }

  @Test
  void summedState_oneSliceTheNewest_holdingEveryLiveSlice() {
    CallRanking ranking = new CallRanking(WINDOW, 1e-6, 5000);
    TraceBuilder trace = new TraceBuilder().span("GET /cart", null, "t1", 0, 100);
    for (long second : new long[] {5, 15, 95}) {
      ranking.add(trace.spans(), trace.analyze(), second * SECOND);
    }

    RankingState summed = ranking.summedState(99 * SECOND, null);

    assertThat(summed.slices()).singleElement().satisfies(slice -> {
      assertThat(slice.id()).isEqualTo(9);
      assertThat(slice.roots()).singleElement().satisfies(root ->
          assertThat(root.operations().get(0).count()).isEqualTo(3));
    });
  }

  @Test
  void merge_ofSlicesOfAnotherLength_refused() {
    CallRanking ranking = new CallRanking(WINDOW, 1e-6, 5000);
    RankingState other = new CallRanking(Duration.ofSeconds(50), 1e-6, 5000).state(0, null);

    assertThatThrownBy(() -> ranking.merge(other))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("spanprof.ranking.window");
  }

  /** One of two roots, a varying number of queries, some failing. */
  private static TraceBuilder trace(SplittableRandom random) {
    boolean cart = random.nextBoolean();
    long end = 1_000 + random.nextInt(50_000);
    TraceBuilder trace = new TraceBuilder()
        .span(cart ? "GET /cart" : "POST /order", null, "t1", 0, end);
    int queries = 1 + random.nextInt(4);
    for (int q = 0; q < queries; q++) {
      long start = q * end / queries;
      long queryEnd = start + random.nextInt((int) (end / queries)) + 1;
      if (random.nextInt(10) == 0) {
        trace.failed("db.query#" + q, cart ? "GET /cart" : "POST /order", "t" + (q + 2), start,
            queryEnd);
      } else {
        trace.span("db.query#" + q, cart ? "GET /cart" : "POST /order", "t" + (q + 2), start,
            queryEnd);
      }
    }
    if (!cart) {
      trace.span("auth", "POST /order", "t1", 0, 1 + random.nextInt(900));
    }
    return trace;
  }

  static void assertSameRanking(RankingSnapshot actual, RankingSnapshot expected) {
    assertThat(actual.rows()).hasSameSizeAs(expected.rows()).isNotEmpty();
    for (int i = 0; i < expected.rows().size(); i++) {
      Row a = actual.rows().get(i);
      Row e = expected.rows().get(i);
      assertThat(a.operation()).isEqualTo(e.operation());
      assertThat(a.involvement()).isCloseTo(e.involvement(), within(1e-9));
      assertThat(a.criticalPathShare()).isCloseTo(e.criticalPathShare(), within(1e-12));
      assertThat(a.durationStddevNs()).isCloseTo(e.durationStddevNs(), within(1e-6));
      assertThat(a.selfTimeStddevNs()).isCloseTo(e.selfTimeStddevNs(), within(1e-6));
      assertThat(a).usingRecursiveComparison()
          .ignoringFields("involvement", "criticalPathShare", "durationStddevNs",
              "selfTimeStddevNs")
          .isEqualTo(e);
    }
    Comparator<EdgeRow> order = Comparator.comparing((EdgeRow edge) -> edge.caller().name())
        .thenComparing(edge -> edge.callee().name());
    List<EdgeRow> actualEdges = actual.edges().stream().sorted(order).toList();
    List<EdgeRow> expectedEdges = expected.edges().stream().sorted(order).toList();
    assertThat(actualEdges).isEqualTo(expectedEdges);
  }
}
