package dev.spanprof.bench;

import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.assembly.Completion;
import dev.spanprof.assembly.TraceSink;
import dev.spanprof.ingest.BenchSpans;
import dev.spanprof.span.SpanMapping;
import dev.spanprof.span.SpanRecord;
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
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Everything after decode and before re-encode, as the service wires it: the analysis stage
 * (analysis, counters, distributions, ranking, pools, recent profiles) on 20-span traces, from
 * the real application context with forwarding off. Reported per span. The spans are mapped at
 * ingest by the context's mapping, as the service's ingest maps them (their resource ids, pools
 * and states): {@code DecodeBenchmark.parseAndMap} counts that.
 *
 * <p>The benchmark cycles through the same traces, so a span's attribute list, decoded from its
 * bytes when the analysis first asks, is decoded in the first pass only; the ingest figures count
 * that decoding (BENCHMARKS.md).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PipelineBenchmark {

  private static final int SPANS_PER_TRACE = 20;

  /**
   * How many distinct traces the benchmark cycles through, a power of two. At 256 (5 120 spans,
   * about 720 series) the spans and series a trace touches are mostly out of the core's caches,
   * as in the service, where a trace is analysed seconds after its spans arrived; at 16 they all
   * stay in cache, which leaves what the instructions cost.
   */
  @Param({"256"})
  public int distinctTraces;

  private ApplicationContext context;
  private TraceSink sink;
  private final List<CompletedTrace> traces = new ArrayList<>();
  private int next;

  @Setup
  public void setUp() {
    context = ApplicationContext.run(Map.of("spanprof.management.port", 0, "micronaut.server.port", -1));
    sink = context.getBean(TraceSink.class);
    // Mapped at ingest by the service's mapping, as its ingest maps them.
    SpanMapping mapping = context.getBean(SpanMapping.class);
    // Whole traces cut from requests of 25, as the service gets them: the spans of one request
    // share their resource (the load generator's 512 spans per request would leave a part trace).
    Workload workload = new Workload(SPANS_PER_TRACE, 25 * SPANS_PER_TRACE);
    for (long request = 0; traces.size() < distinctTraces; request++) {
      List<SpanRecord> spans = BenchSpans.map(
          workload.request(1_700_000_000_000_000_000L + request * 1_000_000_000L), mapping);
      for (int from = 0; from < spans.size() && traces.size() < distinctTraces; from += SPANS_PER_TRACE) {
        List<SpanRecord> trace = List.copyOf(spans.subList(from, from + SPANS_PER_TRACE));
        traces.add(new CompletedTrace(trace.get(0).traceId(), trace, Completion.TIMEOUT, false, 0));
      }
    }
  }

  @TearDown
  public void tearDown() {
    context.close();
  }

  @Benchmark
  @OperationsPerInvocation(SPANS_PER_TRACE)
  public void analyseAndRecord() {
    // Arrived now, as assembly stamps a trace, so the windows' slices move on as in the service.
    CompletedTrace trace = traces.get(next++ & (distinctTraces - 1));
    sink.accept(new CompletedTrace(trace.traceId(), trace.spans(), trace.completion(), false,
        System.currentTimeMillis() * 1_000_000L));
  }
}
