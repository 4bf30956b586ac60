package dev.spanprof.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.assembly.AcceptedSpansConsumer;
import dev.spanprof.ingest.Admission.Verdict;
import dev.spanprof.otlp.InvalidOtlpException;
import dev.spanprof.span.SpanRecord;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The admission gate over every combination that matters: open or shutting down, the heap over
 * its limit or not, a spool or none, the buffer stuck full (with or without room for this
 * request) or able to make room, the pass-through forwarding queue with or without room.
 */
class AdmissionTest {

  private static final int MAX_BUFFERED = 1000;

  @ParameterizedTest(name = "open={0} memoryOver={1} spool={2} bufferStuck={3} bufferRoom={4} "
      + "forwardingRefuses={5} forwardingRoom={6} spans={7} -> {8}")
  @CsvSource({
      // open, memory over, spool, buffer stuck, buffer room, forwarding may refuse, its room,
      // spans, verdict
      "false, true,  true,  true,  false, true,  false, 10,   SHUTTING_DOWN",
      "false, false, false, false, true,  false, true,  10,   SHUTTING_DOWN",
      "true,  true,  false, false, true,  false, true,  10,   MEMORY_LIMIT",
      "true,  true,  true,  true,  false, true,  false, 10,   MEMORY_LIMIT",
      "true,  false, true,  true,  false, true,  false, 10,   DECODE",
      "true,  false, false, false, true,  false, true,  10,   DECODE",
      "true,  false, false, false, true,  true,  false, 10,   FORWARDING_FULL",
      "true,  false, false, false, true,  true,  true,  10,   DECODE",
      "true,  false, false, true,  false, false, true,  10,   BUFFER_FULL",
      "true,  false, false, true,  true,  false, true,  10,   DECODE",
      "true,  false, false, true,  false, true,  false, 10,   FORWARDING_FULL",
      "true,  false, false, true,  false, false, true,  1001, DECODE",
      "true,  false, false, true,  false, false, true,  0,    DECODE",
  })
  void beforeDecoding(boolean open, boolean memoryOver, boolean spool, boolean bufferStuck,
      boolean bufferRoom, boolean forwardingMayRefuse, boolean forwardingRoom, int spans,
      Verdict expected) {
    Admission admission = new Admission(() -> open, () -> memoryOver, spool,
        () -> !bufferStuck, requested -> bufferRoom, forwarding(forwardingMayRefuse,
        forwardingRoom), MAX_BUFFERED);

    Admission.Answer answer = admission.beforeDecoding(() -> spans);

    assertThat(answer.verdict()).isEqualTo(expected);
    if (expected != Verdict.DECODE && expected != Verdict.SHUTTING_DOWN) {
      assertThat(answer.spans()).as("the refused spans are counted").isEqualTo(spans);
    }
  }

  @Test
  void beforeDecoding_countsSpansOnlyWhenTheAnswerNeedsThem() {
    List<String> counted = new ArrayList<>();
    Admission.SpanCount count = () -> {
      counted.add("counted");
      return 5;
    };
    Admission easy = new Admission(() -> true, () -> false, false, () -> true, n -> true,
        forwarding(false, true), MAX_BUFFERED);

    assertThat(easy.beforeDecoding(count).verdict()).isEqualTo(Verdict.DECODE);
    assertThat(counted).as("nothing full: decoded without counting").isEmpty();
  }

  @Test
  void beforeDecoding_malformedFraming_decodedToSayWhere_unlessTheHeapIsFull() {
    Admission.SpanCount malformed = () -> {
      throw new InvalidOtlpException("truncated");
    };
    Admission stuck = new Admission(() -> true, () -> false, false, () -> false, n -> false,
        forwarding(false, true), MAX_BUFFERED);
    Admission heapFull = new Admission(() -> true, () -> true, false, () -> false, n -> false,
        forwarding(false, true), MAX_BUFFERED);

    assertThat(stuck.beforeDecoding(malformed).verdict()).isEqualTo(Verdict.DECODE);
    assertThat(heapFull.beforeDecoding(malformed))
        .isEqualTo(new Admission.Answer(Verdict.MEMORY_LIMIT, 0));
  }

  private static AcceptedSpansConsumer forwarding(boolean mayRefuse, boolean room) {
    return new AcceptedSpansConsumer() {
      @Override
      public void onAccepted(List<SpanRecord> spans) {}

      @Override
      public boolean hasRoomFor(int spans) {
        return room;
      }

      @Override
      public boolean mayRefuse() {
        return mayRefuse;
      }
    };
  }
}
