package dev.spanprof.analysis.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.spanprof.analysis.trace.TraceBuilder;
import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.span.Operation;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Hand-worked tails, drawn as timelines (ms). */
class TailWindowTest {

  private static final long MS = 1_000_000;
  private static final Operation CHECKOUT = new Operation("svc", "GET /checkout");
  private static final Operation DB = new Operation("svc", "db.query");
  private static final Operation AUTH = new Operation("svc", "auth");
  private static final Operation RENDER = new Operation("svc", "render");

  /**
   * Nine fast checkouts and one whose query is 20 times slower:
   * <pre>
   * fast (×9)  GET /checkout |==============================|     0–30
   *            auth          |=====|                               0–5    running
   *            db.query            |==========|                    5–15   wait.db
   *            render                         |===============|   15–30  running
   * slow (×1)  the same, but db.query 5–205 and render 205–220: D = 220
   * </pre>
   * At q = 0.9, S is the slow one: meanSlow(D) 220, meanAll(D) (9·30 + 220) / 10 = 49, and
   * db.query has all 171 of the excess, auth and render none.
   */
  @Test
  void breakdown_oneSlowQuery_takesAllTheExcess() {
    TailWindow window = new TailWindow(Duration.ofMinutes(5), 10, 10);
    for (int i = 0; i < 9; i++) {
      window.add(checkout(10), 0);
    }
    window.add(checkout(200), 0);

    TailBreakdown tail = window.breakdown(CHECKOUT, 0.9, 0).orElseThrow();

    assertThat(tail.slowTraces()).isEqualTo(1);
    assertThat(tail.allTraces()).isEqualTo(10);
    assertThat(tail.thetaNs()).isLessThanOrEqualTo(220 * MS).isGreaterThan(30 * MS);
    assertThat(tail.meanSlowNs()).isEqualTo(220.0 * MS);
    assertThat(tail.meanAllNs()).isEqualTo(49.0 * MS);
    TailBreakdown.Row<Operation> db = tail.operations().get(0);
    assertThat(db.key()).isEqualTo(DB);
    assertThat(db.meanSlowNs()).isEqualTo(200.0 * MS);
    assertThat(db.meanAllNs()).isEqualTo(29.0 * MS);
    assertThat(db.excessNs()).isEqualTo(171.0 * MS);
    assertThat(db.shareSlow()).isCloseTo(200.0 / 220, within(1e-12));
    assertThat(db.shareAll()).isCloseTo(290.0 / 490, within(1e-12));
    assertThat(tail.operations()).filteredOn(row -> !row.key().equals(DB))
        .extracting(TailBreakdown.Row::key).containsExactlyInAnyOrder(AUTH, RENDER);
    assertThat(tail.operations()).filteredOn(row -> !row.key().equals(DB))
        .allSatisfy(row -> assertThat(row.excessNs()).isZero());
    assertThat(tail.states()).extracting(TailBreakdown.Row::key)
        .containsExactly("wait.db", "running");
    assertThat(tail.states().get(0).excessNs()).isEqualTo(171.0 * MS);
  }

  /**
   * The quantile picks S: at q = 0.5 the five slowest of ten traces whose query takes 10 to 100
   * ms (durations at least 9 % apart, so each in a bucket of its own).
   * <pre>
   * trace k  GET /checkout |=======================|   0 – 20+10k
   *          auth          |=====|                    0–5
   *          db.query            |===10k===|          5 – 5+10k
   *          render                        |=======|  5+10k – 20+10k
   * </pre>
   * S = the traces of 80 to 120 ms: meanSlow(D) 100, meanAll(D) 75; the query 80 against 55.
   * With the durations 1 ms apart, 25 and 26 ms share a bucket, and S took in six.
   */
  @Test
  void breakdown_medianSplitsTheTracesInHalves() {
    TailWindow window = new TailWindow(Duration.ofMinutes(5), 10, 10);
    for (int k = 1; k <= 10; k++) {
      window.add(checkout(10 * k), 0);
    }

    TailBreakdown tail = window.breakdown(CHECKOUT, 0.5, 0).orElseThrow();

    assertThat(tail.slowTraces()).isEqualTo(5);
    assertThat(tail.thetaNs()).isBetween(80 * MS * 100 / 105, 80 * MS);
    assertThat(tail.meanSlowNs()).isEqualTo(100.0 * MS);
    assertThat(tail.meanAllNs()).isEqualTo(75.0 * MS);
    assertThat(tail.operations().get(0).key()).isEqualTo(DB);
    assertThat(tail.operations().get(0).excessNs()).isEqualTo(25.0 * MS);
  }

  @Test
  void roots_listEachRootWithItsCountAndQuantiles() {
    TailWindow window = new TailWindow(Duration.ofMinutes(5), 10, 10);
    for (int k = 1; k <= 100; k++) {
      window.add(checkout(k), 0);
    }

    List<TailRoot> roots = window.roots(0);

    assertThat(roots).hasSize(1);
    TailRoot root = roots.get(0);
    assertThat(root.root()).isEqualTo(CHECKOUT);
    assertThat(root.traces()).isEqualTo(100);
    // Durations 21 to 120 ms; each quantile is the lower bound of its 5 % bucket.
    assertThat(root.p50Ns()).isBetween(71 * MS * 100 / 105, 71 * MS);
    assertThat(root.p90Ns()).isBetween(111 * MS * 100 / 105, 111 * MS);
    assertThat(root.p99Ns()).isBetween(120 * MS * 100 / 105, 120 * MS);
  }

  @Test
  void window_forgetsTracesOlderThanItsLength() {
    TailWindow window = new TailWindow(Duration.ofSeconds(10), 10, 10);
    window.add(checkout(200), 0);
    window.add(checkout(10), Duration.ofSeconds(9).toNanos());

    assertThat(window.breakdown(CHECKOUT, 0.5, Duration.ofSeconds(9).toNanos()).orElseThrow()
        .allTraces()).isEqualTo(2);
    assertThat(window.breakdown(CHECKOUT, 0.5, Duration.ofSeconds(12).toNanos()).orElseThrow()
        .allTraces()).isEqualTo(1);
    assertThat(window.breakdown(CHECKOUT, 0.5, Duration.ofSeconds(25).toNanos())).isEmpty();
  }

  /** As the ranking's: a trace goes to the slice of its arrival, whatever the order added in. */
  @Test
  void window_traceAddedAfterALaterOne_countsInTheSliceOfItsArrival() {
    TailWindow window = new TailWindow(Duration.ofSeconds(10), 10, 10);
    window.add(checkout(10), Duration.ofMillis(5_500).toNanos());
    window.add(checkout(200), Duration.ofMillis(4_500).toNanos());

    assertThat(window.breakdown(CHECKOUT, 0.5, Duration.ofMillis(13_999).toNanos()).orElseThrow()
        .allTraces()).isEqualTo(2);
    // At 14 s the slice [4 s, 5 s) has left the window; [5 s, 6 s) has not.
    assertThat(window.breakdown(CHECKOUT, 0.5, Duration.ofSeconds(14).toNanos()).orElseThrow()
        .allTraces()).isEqualTo(1);
  }

  @Test
  void limits_foldFurtherRootsAwayAndFurtherOperationsIntoOverflow() {
    TailWindow window = new TailWindow(Duration.ofMinutes(5), 1, 2);
    window.add(checkout(10), 0);
    window.add(new TraceBuilder().span("GET /other", null, "t1", 0, 10).analyze(), 0);

    TailBreakdown tail = window.breakdown(CHECKOUT, 0.5, 0).orElseThrow();

    assertThat(window.overflowTraces()).isEqualTo(1);
    assertThat(window.breakdown(new Operation("svc", "GET /other"), 0.5, 0)).isEmpty();
    assertThat(window.overflowRows()).isEqualTo(1);
    assertThat(tail.operations()).extracting(TailBreakdown.Row::key)
        .contains(TailWindow.OVERFLOW_OPERATION).hasSize(3);
    assertThat(tail.operations().stream().mapToDouble(TailBreakdown.Row::meanAllNs).sum())
        .isEqualTo(tail.meanAllNs());
  }

  @Test
  void breakdown_quantileOutsideTheOpenInterval_refused() {
    TailWindow window = new TailWindow(Duration.ofMinutes(5), 10, 10);

    assertThatThrownBy(() -> window.breakdown(CHECKOUT, 1.0, 0))
        .hasMessage("quantile must be in (0, 1), was 1.0");
    assertThatThrownBy(() -> window.breakdown(CHECKOUT, 0, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /** The checkout of the drawings, its query taking {@code queryMs}. */
  static TraceProfile checkout(long queryMs) {
    long queryEnd = (5 + queryMs) * MS;
    return new TraceBuilder()
        .span("GET /checkout", null, "t1", 0, queryEnd + 15 * MS)
        .span("auth", "GET /checkout", "t1", 0, 5 * MS)
        .span("db.query", "GET /checkout", "t1", 5 * MS, queryEnd, "db.system", "postgresql")
        .span("render", "GET /checkout", "t1", queryEnd, queryEnd + 15 * MS)
        .analyze();
  }
}
