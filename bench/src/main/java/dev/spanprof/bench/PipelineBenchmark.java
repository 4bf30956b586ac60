package dev.spanprof.bench;

import dev.spanprof.analysis.SpanRecord;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.assembly.Completion;
import dev.spanprof.assembly.TraceSink;
import dev.spanprof.ingest.BenchSpans;
import io.micronaut.context.ApplicationContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Everything after decode and before re-encode, as the service wires it: the analysis stage
 * (analysis, counters, distributions, ranking, pools, recent profiles) on 20-span traces, from
 * the real application context with forwarding off. Reported per span.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PipelineBenchmark {

  private ApplicationContext context;
  private TraceSink sink;
  private final List<CompletedTrace> traces = new ArrayList<>();
  private int next;

  @Setup
  public void setUp() {
    context = ApplicationContext.run(Map.of("spanprof.management.port", 0, "micronaut.server.port", -1));
    sink = context.getBean(TraceSink.class);
    Workload workload = new Workload(20, 20);
    for (int i = 0; i < 256; i++) {
      List<SpanRecord> spans = BenchSpans.map(workload.request(1_700_000_000_000_000_000L + i * 1_000_000_000L));
      traces.add(new CompletedTrace(spans.get(0).traceId(), spans, Completion.TIMEOUT, false));
    }
  }

  @TearDown
  public void tearDown() {
    context.close();
  }

  @Benchmark
  @OperationsPerInvocation(20)
  public void analyseAndRecord() {
    sink.accept(traces.get(next++ & 255));
  }
}
