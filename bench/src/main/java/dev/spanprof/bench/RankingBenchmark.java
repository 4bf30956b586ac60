package dev.spanprof.bench;

import dev.spanprof.analysis.ranking.CallRanking;
import dev.spanprof.analysis.ranking.RankingSnapshot;
import dev.spanprof.analysis.trace.TraceAnalyzer;
import dev.spanprof.span.Attributes;
import dev.spanprof.span.SpanMapping;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.SpanResource;
import dev.spanprof.span.SpanScope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * A ranking refresh (merging the window, the power iteration, ranks and flags) over
 * {@code operations} operations that call each other at random, 4 calls out of each.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class RankingBenchmark {

  @Param({"100", "5000"})
  public int operations;

  private CallRanking ranking;

  @Setup
  public void setUp() {
    ranking = new CallRanking(Duration.ofMinutes(5), 1e-6, 10_000);
    Random random = new Random(1);
    SpanResource resource = new SpanResource("svc", Attributes.empty(), "", new byte[0]);
    SpanScope scope = new SpanScope("bench", "", Attributes.empty(), "", new byte[0]);
    TraceAnalyzer analyzer = new TraceAnalyzer(SpanMapping.defaults());
    for (int caller = 0; caller < operations; caller++) {
      List<SpanRecord> spans = new ArrayList<>();
      spans.add(span(1, 0, "op" + caller, resource, scope));
      for (int call = 0; call < 4; call++) {
        spans.add(span(call + 2, 1, "op" + random.nextInt(operations), resource, scope));
      }
      ranking.add(spans, analyzer.analyze(spans.get(0).traceId(), spans), 0);
    }
  }

  @Benchmark
  public RankingSnapshot refresh() {
    return ranking.snapshot(0);
  }

  private static SpanRecord span(long id, long parent, String name, SpanResource resource, SpanScope scope) {
    return SpanRecord.builder().setTraceId(1, 1).setSpanId(id).setParentSpanId(parent)
        .setName(name).setStartNanos(id * 10).setEndNanos(id * 10 + 5 + (parent == 0 ? 100 : 0))
        .setResource(resource).setScope(scope).build();
  }
}
