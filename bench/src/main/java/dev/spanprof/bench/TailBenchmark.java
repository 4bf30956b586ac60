package dev.spanprof.bench;

import dev.spanprof.analysis.tail.TailWindow;
import dev.spanprof.analysis.trace.TraceAnalyzer;
import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.ingest.BenchSpans;
import dev.spanprof.span.SpanMapping;
import java.time.Duration;
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
 * What the tail window (semantics.md §6) costs per analysed trace: its critical path summed by
 * operation and state, and added to its root's duration bucket. Per trace.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class TailBenchmark {

  @Param({"20", "1000"})
  public int spansPerTrace;

  private TraceProfile profile;
  private TailWindow window;

  @Setup
  public void setUp() {
    var spans = BenchSpans.map(new Workload(spansPerTrace, spansPerTrace)
        .request(1_700_000_000_000_000_000L));
    profile = new TraceAnalyzer(SpanMapping.defaults()).analyze(spans.get(0).traceId(), spans);
    window = new TailWindow(Duration.ofMinutes(5), 100, 50);
  }

  @Benchmark
  public TailWindow add() {
    window.add(profile, 0);
    return window;
  }
}
