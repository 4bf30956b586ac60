package dev.spanprof.bench;

import dev.spanprof.analysis.trace.TraceAnalyzer;
import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.ingest.BenchSpans;
import dev.spanprof.span.SpanMapping;
import dev.spanprof.span.SpanRecord;
import java.util.List;
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
 * Per-trace analysis (every figure of semantics.md §2 and §3, critical path included) of one
 * trace of {@code spansPerTrace} spans. Reported per trace: divide by the size for ns per span.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AnalysisBenchmark {

  @Param({"10", "100", "1000", "10000"})
  public int spansPerTrace;

  private List<SpanRecord> spans;
  private TraceAnalyzer analyzer;

  @Setup
  public void setUp() {
    spans = BenchSpans.map(new Workload(spansPerTrace, spansPerTrace)
        .request(1_700_000_000_000_000_000L));
    analyzer = new TraceAnalyzer(SpanMapping.defaults());
  }

  @Benchmark
  public TraceProfile analyze() {
    return analyzer.analyze(spans.get(0).traceId(), spans);
  }
}
