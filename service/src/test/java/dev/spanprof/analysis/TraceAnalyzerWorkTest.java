package dev.spanprof.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.IntFunction;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The analysis does O(n log n) work (plus the nesting depth on one resource per span) on large
 * traces of three shapes, shown by counting its elementary steps, not by timing: growing a
 * trace tenfold, from 10 000 to 100 000 spans, grows the work by less than 10 × log(100 000) /
 * log(10 000) × 1.2 — a quadratic step would grow it a hundredfold.
 */
class TraceAnalyzerWorkTest {

  private static final SpanResource SERVICE = new SpanResource("svc",
      Attributes.wrap(new String[] {"service.name"}, new Object[] {"svc"}), "", new byte[0]);

  enum Shape {
    /** A root fanning out to sequential calls on 100 threads. */
    FAN_OUT_ON_THREADS(n -> {
      List<SpanRecord> spans = new ArrayList<>();
      spans.add(span(1, 0, "root", 0, 10L * n));
      for (int i = 1; i < n; i++) {
        long slot = i / 100;
        spans.add(span(i + 1, 1, "t" + (i % 100), slot * 1000, slot * 1000 + 900));
      }
      return spans;
    }),
    /** Overlapping calls on one coarse resource (resources keyed by service only). */
    OVERLAPPING_ON_ONE_RESOURCE(n -> {
      Random random = new Random(42);
      List<SpanRecord> spans = new ArrayList<>();
      spans.add(span(1, 0, null, 0, 1_000_000));
      for (int i = 1; i < n; i++) {
        long from = random.nextInt(1_000_000);
        spans.add(span(i + 1, 1, null, from, from + random.nextInt(50_000)));
      }
      return spans;
    }),
    /** Chains nested ten deep on one thread each. */
    NESTED_CHAINS(n -> {
      List<SpanRecord> spans = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        int depth = i % 10;
        long chain = i / 10;
        spans.add(span(i + 1, depth == 0 ? 0 : i, "c" + chain, chain * 100 + depth,
            chain * 100 + 100 - depth));
      }
      return spans;
    });

    final IntFunction<List<SpanRecord>> build;

    Shape(IntFunction<List<SpanRecord>> build) {
      this.build = build;
    }
  }

  @ParameterizedTest
  @EnumSource(Shape.class)
  void analyze_tenTimesTheSpans_aboutTenTimesTheWork(Shape shape) {
    TraceAnalyzer analyzer = new TraceAnalyzer(new SpanMapping(
        List.of("service.name", "thread.id"), List.of("service.name"), StateRule.defaults(),
        "running", StateTable.of(StateTable.defaults())));

    long small = analyzer.countWork(TraceBuilder.TRACE, shape.build.apply(10_000));
    long large = analyzer.countWork(TraceBuilder.TRACE, shape.build.apply(100_000));

    double nLogNGrowth = 10 * Math.log(100_000) / Math.log(10_000);
    assertThat((double) large / small).as("work %d -> %d", small, large)
        .isLessThan(nLogNGrowth * 1.2);
    assertThat(large).isLessThan(100L * 100_000 * 17);
  }

  private static SpanRecord span(long id, long parent, String thread, long start, long end) {
    Attributes attributes = thread == null ? Attributes.empty()
        : Attributes.wrap(new String[] {"thread.id"}, new Object[] {thread});
    return SpanRecord.builder()
        .setTraceId(TraceBuilder.TRACE.high(), TraceBuilder.TRACE.low())
        .setSpanId(id)
        .setParentSpanId(parent)
        .setName("op" + (id % 7))
        .setStartNanos(start)
        .setEndNanos(end)
        .setAttributes(attributes)
        .setResource(SERVICE)
        .setScope(TestSpans.SCOPE)
        .build();
  }
}
