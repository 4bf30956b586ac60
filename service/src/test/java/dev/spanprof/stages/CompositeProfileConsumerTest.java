package dev.spanprof.stages;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.analysis.trace.TraceBuilder;
import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.assembly.Completion;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CompositeProfileConsumerTest {

  @Test
  void composite_handsEachTraceToEveryConsumerInOrder() {
    List<String> calls = new ArrayList<>();
    ProfileConsumer composite = ProfileConsumer.composite(List.of(
        recording("first", calls, true), recording("second", calls, true)));
    TraceBuilder trace = new TraceBuilder().span("root", null, "1", 0, 10);
    TraceProfile profile = trace.analyze();

    composite.accept(new CompletedTrace(TraceBuilder.TRACE, trace.spans(), Completion.TIMEOUT,
        false, 0), profile, 42);

    assertThat(calls).containsExactly("first@42", "second@42");
  }

  @Test
  void composite_hasRoomOnlyWhenEveryConsumerHas() {
    List<String> calls = new ArrayList<>();

    assertThat(ProfileConsumer.composite(List.of(recording("a", calls, true),
        recording("b", calls, true))).hasRoomFor(10, 5)).isTrue();
    assertThat(ProfileConsumer.composite(List.of(recording("a", calls, true),
        recording("b", calls, false))).hasRoomFor(10, 5)).isFalse();
  }

  private static ProfileConsumer recording(String name, List<String> calls, boolean room) {
    return new ProfileConsumer() {
      @Override
      public void accept(CompletedTrace trace, TraceProfile profile, long nowNanos) {
        calls.add(name + "@" + nowNanos);
      }

      @Override
      public boolean hasRoomFor(long queuedSpans, int traceSpans) {
        return room;
      }
    };
  }
}
