package dev.spanprof.analysis.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spanprof.analysis.trace.TraceBuilder;
import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.span.Operation;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Semantics.md §7: three tail windows fed disjoint whole traces, their states merged, break the
 * tail down exactly as one fed all of them.
 */
class TailStateTest {

  private static final long MS = 1_000_000;
  private static final Operation CHECKOUT = new Operation("svc", "GET /checkout");
  private static final Operation SEARCH = new Operation("svc", "GET /search");

  @Test
  void mergedStatesOfThreeReplicas_breakDownAsOneProcessFedAll() {
    TailWindow reference = new TailWindow(Duration.ofMinutes(5), 10, 10);
    TailWindow[] replicas = {new TailWindow(Duration.ofMinutes(5), 10, 10),
        new TailWindow(Duration.ofMinutes(5), 10, 10), new TailWindow(Duration.ofMinutes(5), 10, 10)};
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < 900; i++) {
      TraceProfile trace = i % 4 == 0 ? search(random.nextInt(1, 300))
          : TailWindowTest.checkout(random.nextInt(1, 400));
      long arrival = i * 100 * MS;
      reference.add(trace, arrival);
      // Replicas first see different operations, so their rows differ in order.
      replicas[(i + 1) % 3].add(trace, arrival);
    }
    long now = 95_000 * MS;
    TailWindow fleet = new TailWindow(Duration.ofMinutes(5), Integer.MAX_VALUE, Integer.MAX_VALUE);
    TailWindow summed = new TailWindow(Duration.ofMinutes(5), Integer.MAX_VALUE, Integer.MAX_VALUE);
    for (TailWindow replica : replicas) {
      fleet.merge(replica.state(now, null));
      summed.merge(replica.summedState(now, null));
    }

    for (TailWindow merged : new TailWindow[] {fleet, summed}) {
      assertThat(merged.roots(now)).isEqualTo(reference.roots(now));
      for (Operation root : new Operation[] {CHECKOUT, SEARCH}) {
        for (double quantile : new double[] {0.5, 0.9, 0.99}) {
          assertThat(merged.breakdown(root, quantile, now))
              .isEqualTo(reference.breakdown(root, quantile, now)).isPresent();
        }
      }
    }
    assertThat(replicas[0].summedState(now, null).roots())
        .allSatisfy(root -> assertThat(root.slices()).hasSize(1));
  }

  @Test
  void state_ofOneRoot_holdsThatRootOnly() {
    TailWindow window = new TailWindow(Duration.ofMinutes(5), 10, 10);
    window.add(TailWindowTest.checkout(10), 0);
    window.add(search(10), 0);

    assertThat(window.state(0, SEARCH).roots()).extracting(TailState.RootState::root)
        .containsExactly(SEARCH);
  }

  @Test
  void merge_ofSlicesOfAnotherLength_refused() {
    TailWindow window = new TailWindow(Duration.ofMinutes(5), 10, 10);
    TailState other = new TailWindow(Duration.ofMinutes(1), 10, 10).state(0, null);

    assertThatThrownBy(() -> window.merge(other)).hasMessageContaining("spanprof.tail.window");
  }

  /** A search whose index lookup takes {@code lookupMs}, then a rank of 3 ms. */
  private static TraceProfile search(long lookupMs) {
    return new TraceBuilder()
        .span("GET /search", null, "t1", 0, (lookupMs + 3) * MS)
        .span("index.lookup", "GET /search", "t1", 0, lookupMs * MS, "db.system", "lucene")
        .span("rank", "GET /search", "t1", lookupMs * MS, (lookupMs + 3) * MS)
        .analyze();
  }
}
