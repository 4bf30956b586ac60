package dev.spanprof.bench;

import dev.spanprof.analysis.trace.TraceAnalyzer;
import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.span.Attributes;
import dev.spanprof.span.SpanMapping;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.SpanResource;
import dev.spanprof.span.SpanScope;
import dev.spanprof.span.StateRule;
import dev.spanprof.span.StateTable;
import dev.spanprof.span.TraceId;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * How the per-trace analysis grows with the trace, on three shapes that stress its sweeps: at
 * O(n log n), ten times the spans cost about 12 times the time; a quadratic step would cost a
 * hundred times. Reported per trace.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class AnalysisScalingBenchmark {

  private static final TraceId TRACE = new TraceId(1, 2);
  private static final SpanResource SERVICE = new SpanResource("svc",
      Attributes.wrap(new String[] {"service.name"}, new Object[] {"svc"}), "", new byte[0]);
  private static final SpanScope SCOPE =
      new SpanScope("bench", "", Attributes.empty(), "", new byte[0]);

  /** The shapes of trace. */
  public enum Shape {
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

    private final IntFunction<List<SpanRecord>> build;

    Shape(IntFunction<List<SpanRecord>> build) {
      this.build = build;
    }
  }

  @Param
  public Shape shape;

  @Param({"10000", "100000"})
  public int spansPerTrace;

  private List<SpanRecord> spans;
  private TraceAnalyzer analyzer;

  @Setup
  public void setUp() {
    spans = shape.build.apply(spansPerTrace);
    analyzer = new TraceAnalyzer(new SpanMapping(List.of("service.name", "thread.id"),
        List.of("service.name"), StateRule.defaults(), "running",
        StateTable.of(StateTable.defaults())));
  }

  @Benchmark
  public TraceProfile analyze() {
    return analyzer.analyze(TRACE, spans);
  }

  private static SpanRecord span(long id, long parent, String thread, long start, long end) {
    Attributes attributes = thread == null ? Attributes.empty()
        : Attributes.wrap(new String[] {"thread.id"}, new Object[] {thread});
    return SpanRecord.builder()
        .setTraceId(TRACE.high(), TRACE.low())
        .setSpanId(id)
        .setParentSpanId(parent)
        .setName("op" + (id % 7))
        .setStartNanos(start)
        .setEndNanos(end)
        .setAttributes(attributes)
        .setResource(SERVICE)
        .setScope(SCOPE)
        .build();
  }
}
