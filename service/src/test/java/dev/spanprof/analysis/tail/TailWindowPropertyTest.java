package dev.spanprof.analysis.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.spanprof.analysis.trace.TraceBuilder;
import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.analysis.trace.TraceProfile.SpanProfile;
import dev.spanprof.span.Operation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.LongRange;

/**
 * Random traces of one root operation against an oracle that takes semantics.md §6 literally:
 * S = the traces with D ≥ θ (θ as the window reports it), cp(o, T) = Σ criticalPathNs of o's
 * spans in T's primary-root tree, found by walking parents, not the path's segments. And the
 * identity: the excesses, per operation and per state, sum to meanSlow(D) − meanAll(D).
 */
class TailWindowPropertyTest {

  private static final Operation ROOT = new Operation("svc", "root");
  private static final String[] NAMES = {"a", "b", "c", "db"};

  /** A child: its parent among the spans before it, thread, start, length, name, db or not. */
  record Child(int parent, int thread, long start, long length, int name, boolean db) {}

  @Provide
  Arbitrary<List<TraceProfile>> traces() {
    Arbitrary<Child> child = Combinators.combine(
            Arbitraries.integers().between(0, 5), Arbitraries.integers().between(0, 2),
            Arbitraries.longs().between(0, 60), Arbitraries.longs().between(0, 40),
            Arbitraries.integers().between(0, NAMES.length - 1), Arbitraries.of(true, false))
        .as(Child::new);
    Arbitrary<TraceProfile> trace = Combinators.combine(
            Arbitraries.longs().between(1, 100), child.list().ofMaxSize(8))
        .as(TailWindowPropertyTest::trace);
    return trace.list().ofMinSize(1).ofMaxSize(30);
  }

  @Property(tries = 300)
  void breakdown_equalsTheLiteralDefinition_andTheExcessesAddUp(
      @ForAll("traces") List<TraceProfile> traces, @ForAll @DoubleRange(min = 0.01, max = 0.99)
      double quantile) {
    TailWindow window = new TailWindow(Duration.ofMinutes(5), 10, 100);
    traces.forEach(trace -> window.add(trace, 0));

    TailBreakdown tail = window.breakdown(ROOT, quantile, 0).orElseThrow();

    List<TraceProfile> slow = traces.stream()
        .filter(trace -> trace.criticalPathNs() >= tail.thetaNs()).toList();
    assertThat(tail.allTraces()).isEqualTo(traces.size());
    assertThat(tail.slowTraces()).isEqualTo(slow.size()).isPositive();
    assertThat(tail.meanSlowNs()).isCloseTo(mean(slow, null), within(1e-6));
    assertThat(tail.meanAllNs()).isCloseTo(mean(traces, null), within(1e-6));
    for (TailBreakdown.Row<Operation> row : tail.operations()) {
      assertThat(row.meanSlowNs()).as("meanSlow %s", row.key())
          .isCloseTo(mean(slow, row.key()), within(1e-6));
      assertThat(row.meanAllNs()).isCloseTo(mean(traces, row.key()), within(1e-6));
    }
    double excess = tail.meanSlowNs() - tail.meanAllNs();
    assertThat(tail.operations().stream().mapToDouble(TailBreakdown.Row::excessNs).sum())
        .isCloseTo(excess, within(1e-6));
    assertThat(tail.states().stream().mapToDouble(TailBreakdown.Row::excessNs).sum())
        .isCloseTo(excess, within(1e-6));
    assertThat(tail.operations()).isSortedAccordingTo(
        (a, b) -> Double.compare(b.excessNs(), a.excessNs()));
  }

  @Property(tries = 1000)
  void bucketOf_holdsTheDurationBetweenItsBounds(@ForAll @LongRange(min = 0,
      max = 4_000_000_000_000L) long durationNs) {
    int bucket = DurationBuckets.bucketOf(durationNs);

    assertThat(DurationBuckets.lowerBound(bucket)).isLessThanOrEqualTo(durationNs);
    assertThat(DurationBuckets.lowerBound(bucket + 1)).isGreaterThan(durationNs);
    if (durationNs >= 100) {
      assertThat((double) DurationBuckets.lowerBound(bucket + 1) / DurationBuckets.lowerBound(bucket))
          .isLessThanOrEqualTo(1.05 + 1.0 / 100);
    }
  }

  /** Mean over the traces of D, or of cp(operation, T) when an operation is given. */
  private static double mean(List<TraceProfile> traces, Operation operation) {
    double total = 0;
    for (TraceProfile trace : traces) {
      total += operation == null ? trace.criticalPathNs() : criticalPath(trace).getOrDefault(operation, 0L);
    }
    return total / traces.size();
  }

  /** cp(o, T): criticalPathNs summed by operation over the spans under the primary root. */
  private static Map<Operation, Long> criticalPath(TraceProfile trace) {
    Map<Operation, Long> result = new HashMap<>();
    for (SpanProfile span : trace.spans()) {
      int top = trace.spans().indexOf(span);
      while (trace.spans().get(top).parentIndex() >= 0) {
        top = trace.spans().get(top).parentIndex();
      }
      if (top == trace.primaryRoot()) {
        result.merge(trace.distinctOperations().get(span.operation()), span.criticalPathNs(),
            Long::sum);
      }
    }
    return result;
  }

  private static TraceProfile trace(long rootLength, List<Child> children) {
    TraceBuilder trace = new TraceBuilder().span("root", null, "t0", 0, rootLength);
    List<String> names = new ArrayList<>(List.of("root"));
    for (int i = 0; i < children.size(); i++) {
      Child child = children.get(i);
      String name = NAMES[child.name()] + "#" + i;
      String parent = names.get(Math.min(child.parent(), names.size() - 1));
      if (child.db()) {
        trace.span(name, parent, "t" + child.thread(), child.start(), child.start() + child.length(),
            "db.system", "postgresql");
      } else {
        trace.span(name, parent, "t" + child.thread(), child.start(), child.start() + child.length());
      }
      names.add(name);
    }
    return trace.analyze();
  }
}
