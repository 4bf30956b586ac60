package dev.spanprof.api;

import dev.spanprof.analysis.trace.TraceAnalyzer;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.assembly.Completion;
import dev.spanprof.bench.Workload;
import dev.spanprof.config.QueryConfiguration;
import dev.spanprof.ingest.BenchSpans;
import dev.spanprof.span.SpanMapping;
import dev.spanprof.span.SpanRecord;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * {@code GET /api/v1/traces} over 10 000 kept traces of the load generator's 20 spans, their
 * original spans all kept: the newest 50 without a filter; an attribute whose key every trace
 * holds (each trace's spans decoded and compared); and one whose key none holds (each trace's
 * bytes scanned, nothing decoded). Reported per search.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class TraceSearchBenchmark {

  private static final int TRACES = 10_000;
  private static final int SPANS_PER_TRACE = 20;

  private RecentProfiles recent;
  private TraceQuery newest;
  private TraceQuery byPresentKey;
  private TraceQuery byAbsentKey;

  @Setup
  public void keepTraces() {
    QueryConfiguration configuration = new QueryConfiguration();
    configuration.setRecentTraces(TRACES);
    configuration.setRecentTraceBytes(128L << 20); // room for all 10 000
    recent = new RecentProfiles(configuration);
    TraceAnalyzer analyzer = new TraceAnalyzer(SpanMapping.defaults(), false);
    Workload workload = new Workload(SPANS_PER_TRACE, 25 * SPANS_PER_TRACE);
    for (long request = 0; request * 25 < TRACES; request++) {
      List<SpanRecord> spans =
          BenchSpans.map(workload.request(1_700_000_000_000_000_000L + request * 1_000_000L));
      for (int from = 0; from < spans.size(); from += SPANS_PER_TRACE) {
        List<SpanRecord> trace = spans.subList(from, from + SPANS_PER_TRACE);
        CompletedTrace completed =
            new CompletedTrace(trace.get(0).traceId(), trace, Completion.TIMEOUT, false, 0);
        recent.accept(completed, analyzer.analyze(completed.traceId(), trace), 0);
      }
      SpanRecord.releaseBytes(spans);
    }
    newest = TraceQuery.parse(Map.of());
    byPresentKey = TraceQuery.parse(Map.of("attr.url.path", "/api/v2/orders/12345"));
    byAbsentKey = TraceQuery.parse(Map.of("attr.no.such.key", "x"));
  }

  @Benchmark
  public List<TraceSummary> newest() {
    return recent.search(newest);
  }

  @Benchmark
  public List<TraceSummary> attributeEveryTraceHasTheKeyOf() {
    return recent.search(byPresentKey);
  }

  @Benchmark
  public List<TraceSummary> attributeNoTraceHasTheKeyOf() {
    return recent.search(byAbsentKey);
  }
}
