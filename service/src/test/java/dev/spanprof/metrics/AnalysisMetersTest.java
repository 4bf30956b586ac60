package dev.spanprof.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.spanprof.analysis.TestSpans;
import dev.spanprof.analysis.trace.TraceAnalyzer;
import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.analysis.trace.TraceProfile.SpanProfile;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.assembly.Completion;
import dev.spanprof.span.Operation;
import dev.spanprof.span.SpanMapping;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.TraceId;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AnalysisMetersTest {

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final AnalysisMeters meters = new AnalysisMeters(registry);
  private final TraceAnalyzer analyzer = new TraceAnalyzer(SpanMapping.defaults());

  /**
   * Traces of more and of fewer operations, one after the other on one thread, as an analysis
   * worker takes them: each operation's counters sum its own spans' times over the traces, and
   * nothing one trace summed is counted again for the next.
   */
  @Test
  void operationCounters_sumEachTracesOwnSpans_overTraces() {
    List<List<SpanRecord>> traces = List.of(
        List.of(span(1, 1, 0, "a", 0, 100), span(1, 2, 1, "a", 10, 40), span(1, 3, 1, "b", 50, 90),
            span(1, 4, 3, "c", 60, 70)),
        List.of(span(2, 1, 0, "c", 0, 30)),
        List.of(span(3, 1, 0, "b", 0, 50), span(3, 2, 1, "a", 5, 25)));
    Map<String, double[]> expectedNs = new HashMap<>();
    for (List<SpanRecord> spans : traces) {
      TraceId id = spans.get(0).traceId();
      TraceProfile profile = analyzer.analyze(id, spans);
      meters.accept(new CompletedTrace(id, spans, Completion.TIMEOUT, false, 0), profile, 0);
      for (int i = 0; i < spans.size(); i++) {
        SpanProfile result = profile.spans().get(i);
        Operation operation = profile.distinctOperations().get(result.operation());
        double[] sums = expectedNs.computeIfAbsent(operation.name(), unused -> new double[3]);
        sums[0] += spans.get(i).durationNanos();
        sums[1] += result.selfTimeNs();
        sums[2] += result.criticalPathNs();
      }
    }

    assertThat(expectedNs.keySet()).containsExactlyInAnyOrder("a", "b", "c");
    // The span time is known without the analysis: Σ durations.
    assertThat(expectedNs.get("a")[0]).isEqualTo(100 + 30 + 20);
    assertThat(expectedNs.get("c")[0]).isEqualTo(10 + 30);
    for (Map.Entry<String, double[]> operation : expectedNs.entrySet()) {
      List<String> names = List.of("spanprof.span.time", "spanprof.self.time",
          "spanprof.critical.path");
      List<Double> counted = new ArrayList<>();
      for (String name : names) {
        counted.add(registry.get(name)
            .tags("service_name", "checkout", "span_name", operation.getKey())
            .functionCounter().count());
      }
      for (int k = 0; k < names.size(); k++) {
        assertThat(counted.get(k)).as("%s of %s", names.get(k), operation.getKey())
            .isCloseTo(operation.getValue()[k] / 1e9, within(1e-15));
      }
    }
  }

  private static SpanRecord span(long trace, long spanId, long parentSpanId, String name,
      long startNanos, long endNanos) {
    return SpanRecord.builder()
        .setTraceId(0, trace)
        .setSpanId(spanId)
        .setParentSpanId(parentSpanId)
        .setName(name)
        .setStartNanos(startNanos)
        .setEndNanos(endNanos)
        .setResource(TestSpans.RESOURCE)
        .setScope(TestSpans.SCOPE)
        .build();
  }
}
