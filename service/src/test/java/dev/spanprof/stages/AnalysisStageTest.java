package dev.spanprof.stages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spanprof.analysis.TestSpans;
import dev.spanprof.analysis.trace.TraceAnalyzer;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.assembly.Completion;
import dev.spanprof.span.SpanMapping;
import dev.spanprof.span.SpanOrigin;
import dev.spanprof.span.SpanRecord;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The analysis stage tells where each span came from what became of it (a Kafka commit waits). */
class AnalysisStageTest {

  private final List<String> told = new ArrayList<>();
  private boolean mayBegin = true;
  private final SpanOrigin origin = new SpanOrigin() {
    @Override
    public boolean forwards() {
      return true;
    }

    @Override
    public boolean beginAnalysis() {
      return mayBegin;
    }

    @Override
    public void abandon() {
      told.add("abandoned");
    }

    @Override
    public void stepDone() {
      told.add("done");
    }

    @Override
    public void failed() {
      told.add("failed");
    }
  };

  @Test
  void analysed_eachSpanStepDone_afterTheStagesTookTheProfile() {
    List<String> seen = new ArrayList<>();
    AnalysisStage stage = new AnalysisStage(new TraceAnalyzer(SpanMapping.defaults()),
        (trace, profile, arrivalNanos) -> seen.add("stages saw " + told.size()));

    stage.accept(trace());

    assertThat(seen).containsExactly("stages saw 0");
    assertThat(told).containsExactly("done", "done");
  }

  @Test
  void aStageThrew_eachSpanFailed_andTheFailureGoesOn() {
    AnalysisStage stage = new AnalysisStage(new TraceAnalyzer(SpanMapping.defaults()),
        (trace, profile, arrivalNanos) -> {
          throw new IllegalStateException("a stage failed");
        });

    assertThatThrownBy(() -> stage.accept(trace())).hasMessage("a stage failed");
    assertThat(told).containsExactly("failed", "failed");
  }

  @Test
  void givenUpWithItsPartition_notAnalysed_eachSpanAbandoned() {
    List<String> seen = new ArrayList<>();
    AnalysisStage stage = new AnalysisStage(new TraceAnalyzer(SpanMapping.defaults()),
        (trace, profile, arrivalNanos) -> seen.add("analysed"));
    mayBegin = false;

    stage.accept(trace());

    assertThat(seen).isEmpty();
    assertThat(told).containsExactly("abandoned", "abandoned");
  }

  private CompletedTrace trace() {
    List<SpanRecord> spans = List.of(span(1, 0, 0, 100), span(2, 1, 10, 40));
    return new CompletedTrace(spans.get(0).traceId(), spans, Completion.TIMEOUT, false, 0);
  }

  private SpanRecord span(long spanId, long parentSpanId, long startNanos, long endNanos) {
    SpanRecord span = SpanRecord.builder().setTraceId(0, 7).setSpanId(spanId)
        .setParentSpanId(parentSpanId).setName("op").setStartNanos(startNanos)
        .setEndNanos(endNanos).setResource(TestSpans.RESOURCE).setScope(TestSpans.SCOPE).build();
    span.origin(origin);
    return span;
  }
}
