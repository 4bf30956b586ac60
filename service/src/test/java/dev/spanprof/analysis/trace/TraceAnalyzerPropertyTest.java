package dev.spanprof.analysis.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.spanprof.analysis.TestSpans;
import dev.spanprof.analysis.trace.TraceProfile.OperationTime;
import dev.spanprof.analysis.trace.TraceProfile.PoolUsage;
import dev.spanprof.analysis.trace.TraceProfile.ResourceBusy;
import dev.spanprof.analysis.trace.TraceProfile.SpanProfile;
import dev.spanprof.analysis.trace.TraceProfile.StateTime;
import dev.spanprof.span.Attributes;
import dev.spanprof.span.SpanKind;
import dev.spanprof.span.SpanMapping;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.SpanResource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.FutureTask;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Random traces — nesting, overlap, several threads, orphans, parent cycles, duplicate ids,
 * spans ending before they start, producer/consumer pairs, allocation spans — analysed fast and
 * by the {@link ElementaryOracle}: the two agree on every figure, and the partitions and
 * inequalities of semantics.md hold.
 */
class TraceAnalyzerPropertyTest {

  private static final SpanMapping MAPPING = SpanMapping.defaults();
  private static final double EPSILON = 1e-6;

  /** The services a trace's spans come from: a trace of several has many (service, pool, state). */
  private static final List<SpanResource> SERVICES = List.of(TestSpans.RESOURCE,
      TestSpans.resource("payment"), TestSpans.resource("stock"));

  /** One generated span: what to draw for it. */
  record Shape(int parent, int thread, long start, long length, int state, int special, int cores,
      int service) {}

  @Provide
  Arbitrary<List<SpanRecord>> traces() {
    Arbitrary<Shape> shape = Combinators.combine(
            Arbitraries.integers().between(-2, 11), // -2 none, -1 missing, else a span index
            Arbitraries.integers().between(0, 3),
            Arbitraries.longs().between(0, 40),
            Arbitraries.longs().between(-3, 25),
            Arbitraries.integers().between(0, 7),
            Arbitraries.integers().between(0, 12),
            Arbitraries.integers().between(1, 3),
            Arbitraries.integers().between(0, SERVICES.size() - 1))
        .as(Shape::new);
    return shape.list().ofMinSize(1).ofMaxSize(12).map(TraceAnalyzerPropertyTest::spans);
  }

  @Property(tries = 400)
  void analyzer_equalsTheElementaryOracle(@ForAll("traces") List<SpanRecord> spans) {
    TraceProfile profile = new TraceAnalyzer(MAPPING).analyze(TraceBuilder.TRACE, spans);
    ElementaryOracle oracle = new ElementaryOracle(spans, MAPPING);

    assertThat(profile.spanTimeNs()).isEqualTo(oracle.spanTime);
    assertThat(profile.ttxNs()).isEqualTo(oracle.ttx);
    assertThat(profile.ttcNs()).isEqualTo(oracle.ttc);
    assertThat(profile.resourceTimeNs()).isEqualTo(oracle.resourceTime);
    Map<String, Long> busy = new TreeMap<>();
    profile.resources().forEach(r -> busy.put(r.resource(), r.busyNs()));
    assertThat(busy).isEqualTo(oracle.busy);
    Map<String, Long> resourceNs = new TreeMap<>();
    Map<String, Long> inclusive = new TreeMap<>();
    Map<String, Long> exclusive = new TreeMap<>();
    for (StateTime state : profile.states()) {
      resourceNs.put(state.state(), state.resourceNs());
      inclusive.put(state.state(), state.inclusiveNs());
      if (state.exclusiveNs() > 0) {
        exclusive.put(state.state(), state.exclusiveNs());
      }
    }
    assertThat(resourceNs).isEqualTo(oracle.stateResource);
    assertThat(inclusive).isEqualTo(oracle.stateInclusive);
    assertThat(exclusive).isEqualTo(oracle.stateExclusive);
    Map<String, Long> operations = new TreeMap<>();
    profile.operations().forEach(o -> operations.put(o.service() + "/" + o.name(), o.resourceTimeNs()));
    assertThat(operations).isEqualTo(oracle.operationTime);
    Map<String, Long> servicePoolStates = new TreeMap<>();
    profile.resourceTimeByServicePoolState().forEach(row -> servicePoolStates.put(
        row.service() + "|" + row.pool() + "|" + row.state(), row.resourceNs()));
    assertThat(servicePoolStates).as("one row per service, pool and state")
        .hasSameSizeAs(profile.resourceTimeByServicePoolState())
        .isEqualTo(oracle.servicePoolStateTime);
    for (int i = 0; i < spans.size(); i++) {
      assertThat(profile.spans().get(i).selfTimeNs()).as("self time of span %d", i)
          .isEqualTo(oracle.selfTime[i]);
      assertThat(profile.spans().get(i).criticalPathNs()).as("critical path of span %d", i)
          .isEqualTo(oracle.critical[i]);
    }
    List<Integer> allocations = new ArrayList<>();
    for (int i = 0; i < spans.size(); i++) {
      if (profile.spans().get(i).allocation()) {
        allocations.add(i);
      }
    }
    assertThat(profile.pools()).hasSameSizeAs(allocations);
    Map<Long, List<Integer>> byStart = new HashMap<>();
    for (int a : allocations) {
      byStart.computeIfAbsent(spans.get(a).startNanos(), unused -> new ArrayList<>()).add(a);
    }
    for (PoolUsage pool : profile.pools()) {
      // Several allocation spans may start together; one of them must match in full.
      assertThat(byStart.get(pool.startNanos())).anySatisfy(a -> {
        assertClose(pool.attributionNs(), oracle.attribution.get(a));
        assertClose(pool.utilization(), oracle.utilization.get(a));
      });
    }
  }

  /**
   * A thread reuses its arrays and name tables from one analysis to the next: whatever it
   * analysed before (here a larger trace, whose leftovers lie past the next one's length), a
   * trace's profile equals the one a thread that never analysed anything computes.
   */
  @Property(tries = 200)
  void profile_doesNotDependOnWhatTheThreadAnalysedBefore(
      @ForAll("traces") List<SpanRecord> before, @ForAll("traces") List<SpanRecord> spans)
      throws Exception {
    TraceAnalyzer analyzer = new TraceAnalyzer(MAPPING);
    List<SpanRecord> larger = new ArrayList<>(before);
    larger.addAll(before);
    analyzer.analyze(TraceBuilder.TRACE, larger);

    TraceProfile afterAnother = analyzer.analyze(TraceBuilder.TRACE, spans);

    assertThat(afterAnother).isEqualTo(onAFreshThread(spans));
  }

  /**
   * A thread reuses its name tables from trace to trace: a trace with more names than the one
   * before (its table grows while it holds the trace's ids), and one with so many that its
   * table is dropped after it, leave the next profiles as a fresh thread computes them.
   */
  @Example
  void profile_doesNotDependOnTheNamesTheThreadMetBefore() throws Exception {
    TraceAnalyzer analyzer = new TraceAnalyzer(MAPPING);
    List<SpanRecord> first = onThreads(0, 6);
    List<SpanRecord> overlapping = onThreads(3, 40);
    List<SpanRecord> huge = onThreads(0, 6_000);

    analyzer.analyze(TraceBuilder.TRACE, first);
    for (List<SpanRecord> spans : List.of(overlapping, huge, first, overlapping)) {
      assertThat(analyzer.analyze(TraceBuilder.TRACE, spans)).isEqualTo(onAFreshThread(spans));
    }
  }

  /** A root on thread {@code from} and a child on each thread after it, up to {@code to}. */
  private static List<SpanRecord> onThreads(int from, int to) {
    TraceBuilder trace = new TraceBuilder().span("root", null, "t" + from, 0, 2L * to);
    for (int thread = from + 1; thread < to; thread++) {
      trace.span("child#" + thread, "root", "t" + thread, thread, 2L * thread);
    }
    return trace.spans();
  }

  private static TraceProfile onAFreshThread(List<SpanRecord> spans) throws Exception {
    FutureTask<TraceProfile> fresh =
        new FutureTask<>(() -> new TraceAnalyzer(MAPPING).analyze(TraceBuilder.TRACE, spans));
    new Thread(fresh).start();
    return fresh.get();
  }

  /**
   * What the UI draws, against the oracle: at every instant each resource's lane shows the span
   * the oracle chooses, and the primary root's path runs without a gap from the root's start to
   * its end, giving each span of the root's tree its critical time and no other span any.
   */
  @Property(tries = 400)
  void lanesAndCriticalPath_agreeWithTheOracle(@ForAll("traces") List<SpanRecord> spans) {
    TraceProfile profile = new TraceAnalyzer(MAPPING).analyze(TraceBuilder.TRACE, spans);
    ElementaryOracle oracle = new ElementaryOracle(spans, MAPPING);

    Set<String> resources = new TreeSet<>();
    profile.spans().forEach(span -> resources.add(span.resource()));
    for (String resource : resources) {
      for (long t = -5; t < 70; t++) {
        SpanSegments lanes = profile.lanes();
        List<Integer> shown = new ArrayList<>();
        for (int k = 0; k < lanes.size(); k++) {
          if (profile.spans().get(lanes.span(k)).resource().equals(resource)
              && lanes.startNanos(k) <= t && t < lanes.endNanos(k)) {
            shown.add(lanes.span(k));
          }
        }
        int expected = oracle.chosen(resource, t);
        assertThat(shown).as("lane of %s at %d", resource, t)
            .isEqualTo(expected < 0 ? List.of() : List.of(expected));
      }
    }

    SpanSegments path = profile.criticalPath();
    long[] pathNs = new long[spans.size()];
    if (oracle.primaryRoot < 0) {
      assertThat(path.size()).isZero();
    } else {
      SpanRecord root = spans.get(oracle.primaryRoot);
      long cursor = root.startNanos();
      for (int k = 0; k < path.size(); k++) {
        assertThat(path.startNanos(k)).as("the path has no gap").isEqualTo(cursor);
        assertThat(path.endNanos(k)).isGreaterThan(path.startNanos(k));
        cursor = path.endNanos(k);
        pathNs[path.span(k)] += path.endNanos(k) - path.startNanos(k);
      }
      assertThat(cursor).isEqualTo(Math.max(root.startNanos(), root.endNanos()));
    }
    for (int i = 0; i < spans.size(); i++) {
      boolean inPrimaryTree = false;
      for (int a = i; a >= 0; a = profile.spans().get(a).parentIndex()) {
        inPrimaryTree |= a == oracle.primaryRoot;
      }
      assertThat(pathNs[i]).as("path time of span %d", i)
          .isEqualTo(inPrimaryTree ? oracle.critical[i] : 0);
    }
  }

  @Property(tries = 400)
  void partitionsAndInequalities_hold(@ForAll("traces") List<SpanRecord> spans) {
    TraceProfile profile = new TraceAnalyzer(MAPPING).analyze(TraceBuilder.TRACE, spans);

    assertThat(profile.states().stream().mapToLong(StateTime::resourceNs).sum())
        .isEqualTo(profile.resourceTimeNs());
    assertThat(profile.states().stream().mapToLong(StateTime::exclusiveNs).sum())
        .isEqualTo(profile.ttxNs());
    assertThat(profile.states().stream().mapToLong(StateTime::inclusiveNs).sum())
        .isGreaterThanOrEqualTo(profile.ttxNs());
    assertThat(profile.operations().stream().mapToLong(OperationTime::resourceTimeNs).sum())
        .isEqualTo(profile.resourceTimeNs());
    assertThat(profile.resources().stream().mapToLong(ResourceBusy::busyNs).sum())
        .isEqualTo(profile.resourceTimeNs());
    assertThat(profile.ttxNs()).isLessThanOrEqualTo(profile.resourceTimeNs())
        .isLessThanOrEqualTo(profile.ttcNs());
    assertThat(profile.resourceTimeNs()).isLessThanOrEqualTo(profile.spanTimeNs());
    for (SpanProfile span : profile.spans()) {
      assertThat(span.selfTimeNs()).isNotNegative();
      assertThat(span.criticalPathNs()).isNotNegative();
    }
    // Σ critical path over the primary root's tree is its duration.
    ElementaryOracle tree = new ElementaryOracle(spans, MAPPING);
    if (tree.primaryRoot >= 0) {
      assertThat(profile.criticalPathNs()).isEqualTo(spans.get(tree.primaryRoot).durationNanos());
    }
    for (PoolUsage pool : profile.pools()) {
      double total = pool.attributionNs().values().stream().mapToDouble(Double::doubleValue).sum();
      assertThat(total).isCloseTo(pool.availableNs(), within(EPSILON * Math.max(1, pool.availableNs())));
    }
  }

  private static void assertClose(Map<String, Double> actual, Map<String, Double> expected) {
    assertThat(actual.keySet()).isEqualTo(expected.keySet());
    expected.forEach((key, value) ->
        assertThat(actual.get(key)).as(key).isCloseTo(value, within(EPSILON * Math.max(1, Math.abs(value)))));
  }

  private static List<SpanRecord> spans(List<Shape> shapes) {
    List<SpanRecord> spans = new ArrayList<>();
    for (int i = 0; i < shapes.size(); i++) {
      Shape shape = shapes.get(i);
      List<Object> attributes = new ArrayList<>(List.of("thread.id", String.valueOf(shape.thread())));
      SpanKind kind = SpanKind.INTERNAL;
      switch (shape.state()) {
        case 1 -> attributes.addAll(List.of("spanprof.state", "idle"));
        case 2 -> attributes.addAll(List.of("spanprof.state", "staging"));
        case 3 -> attributes.addAll(List.of("spanprof.state", "wait.x"));
        case 4 -> attributes.addAll(List.of("db.system", "postgresql"));
        case 5 -> kind = SpanKind.CLIENT;
        case 6 -> attributes.addAll(List.of("spanprof.state", "wait.net"));
        default -> { } // running, by the default rule
      }
      long spanId = i + 1;
      switch (shape.special()) {
        case 0 -> attributes.addAll(List.of("spanprof.pool.capacity", (long) shape.cores()));
        case 1 -> spanId = Math.max(1, i); // the previous span's id: a duplicate
        case 2 -> kind = SpanKind.PRODUCER;
        case 3 -> kind = SpanKind.CONSUMER;
        case 4 -> attributes.addAll(List.of("spanprof.cores", (long) shape.cores()));
        case 5 -> attributes.addAll(List.of("spanprof.category", "system"));
        default -> { }
      }
      long parent = shape.parent() == -2 ? 0
          : shape.parent() == -1 ? 999
          : shape.parent() < shapes.size() ? shape.parent() + 1 : 0;
      String[] keys = new String[attributes.size() / 2];
      Object[] values = new Object[keys.length];
      for (int k = 0; k < keys.length; k++) {
        keys[k] = (String) attributes.get(2 * k);
        values[k] = attributes.get(2 * k + 1);
      }
      spans.add(SpanRecord.builder()
          .setTraceId(TraceBuilder.TRACE.high(), TraceBuilder.TRACE.low())
          .setSpanId(spanId)
          .setParentSpanId(parent)
          .setName("op" + (i % 4))
          .setKind(kind)
          .setStartNanos(shape.start())
          .setEndNanos(shape.start() + shape.length())
          .setAttributes(Attributes.wrap(keys, values))
          .setResource(SERVICES.get(shape.service()))
          .setScope(TestSpans.SCOPE)
          .build());
    }
    return spans;
  }
}
