package dev.spanprof.assembly;

import static dev.spanprof.analysis.TestSpans.span;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.TraceId;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class TraceAssemblerTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(5);
  private static final Duration MAX_AGE = Duration.ofSeconds(60);

  private final ManualTimeSource time = new ManualTimeSource();
  private final RecordingHandoff handoff = new RecordingHandoff();
  private final CountingListener listener = new CountingListener();

  private TraceAssembler assembler(long maxBufferedSpans, int maxSpansPerTrace) {
    return new TraceAssembler(
        new AssemblyPolicy(TIMEOUT, MAX_AGE, maxBufferedSpans, maxSpansPerTrace, 1000),
        time, handoff, listener, 4);
  }

  @Test
  void sweep_traceIdleForTimeout_completesWithAllItsSpans() {
    TraceAssembler assembler = assembler(100, 100);
    assertThat(assembler.offer(List.of(span(1, 1), span(2, 1)))).isEqualTo(OfferResult.ACCEPTED);
    time.advance(Duration.ofSeconds(3));
    assembler.offer(List.of(span(1, 2)));
    time.advance(Duration.ofSeconds(2));

    assembler.sweep();

    // Trace 2 has been idle 5 s; trace 1 only 2 s since its second span.
    assertThat(handoff.traces).singleElement().satisfies(trace -> {
      assertThat(trace.traceId()).isEqualTo(new TraceId(0, 2));
      assertThat(trace.completion()).isEqualTo(Completion.TIMEOUT);
      assertThat(trace.fragment()).isFalse();
    });
    time.advance(Duration.ofSeconds(3));
    assembler.sweep();
    assertThat(handoff.traces).hasSize(2);
    assertThat(handoff.traces.get(1).spans()).extracting(SpanRecord::spanId).containsExactly(1L, 2L);
    assertThat(assembler.bufferedSpans()).isZero();
  }

  /** semantics.md §7: a trace belongs to the slice of its arrival, its last span's receipt. */
  @Test
  void completedTrace_carriesTheWallClockArrivalOfItsLastSpan() {
    TraceAssembler assembler = assembler(100, 100);
    Instant first = Instant.parse("2026-12-06T10:00:00Z");
    time.setWallClock(first);
    assembler.offer(List.of(span(1, 1)));
    time.advance(Duration.ofSeconds(3));
    assembler.offer(List.of(span(1, 2)));
    // The wall clock stepped back (NTP): the trace keeps the latest arrival it saw.
    time.setWallClock(first.plusSeconds(1));
    assembler.offer(List.of(span(1, 3)));
    time.advance(TIMEOUT);

    assembler.sweep();

    assertThat(handoff.traces).singleElement().extracting(CompletedTrace::arrivalEpochNanos)
        .isEqualTo((first.getEpochSecond() + 3) * 1_000_000_000L);
  }

  @Test
  void sweep_justBeforeTimeout_keepsTrace() {
    TraceAssembler assembler = assembler(100, 100);
    assembler.offer(List.of(span(1, 1)));
    time.advance(TIMEOUT.minusNanos(1));

    assembler.sweep();

    assertThat(handoff.traces).isEmpty();
    assertThat(assembler.bufferedSpans()).isEqualTo(1);
  }

  @Test
  void sweep_looksAtTracesOnlyUpToTheFirstThatArrivedTooRecentlyToBeDue() {
    TraceAssembler assembler = assembler(10_000, 100);
    for (int trace = 1; trace <= 1000; trace++) {
      assembler.offer(List.of(span(trace, 1)));
    }
    time.advance(Duration.ofSeconds(3));
    for (int trace = 1001; trace <= 2000; trace++) {
      assembler.offer(List.of(span(trace, 1)));
    }
    time.advance(Duration.ofSeconds(2));

    assembler.sweep();

    assertThat(handoff.traces).hasSize(1000)
        .allSatisfy(trace -> assertThat(trace.traceId().low()).isLessThanOrEqualTo(1000));
    // The due thousand, and in each of the four shards the first trace that is not due.
    assertThat(assembler.tracesExaminedBySweeps()).isEqualTo(1000 + 4);
  }

  @Test
  void sweep_traceAtSpanLimitWhileHandoffRefused_completesWithSpanLimitBeforeItsTimeout() {
    TraceAssembler assembler = assembler(100, 3);
    handoff.refusing = true;
    assembler.offer(List.of(span(1, 1), span(1, 2), span(1, 3)));
    assembler.offer(List.of(span(1, 4)));
    assertThat(handoff.traces).isEmpty();

    handoff.refusing = false;
    assembler.sweep();

    assertThat(handoff.traces).singleElement().satisfies(trace -> {
      assertThat(trace.completion()).isEqualTo(Completion.SPAN_LIMIT);
      assertThat(trace.spans()).extracting(SpanRecord::spanId).containsExactly(1L, 2L, 3L);
    });
    assertThat(assembler.bufferedSpans()).as("span 4, the next fragment, still open").isEqualTo(1);
  }

  /**
   * A trace that keeps coming while the hand-off has no room is cut into fragments at the limit
   * all the same; each waits whole, and they are handed on in order.
   *
   * <pre>
   *   spans    1 2 3 | 4 5 6 | 7 8 9 | 10        limit 3, hand-off refusing throughout
   *   handed   [1 2 3] [4 5 6] [7 8 9] [10]      once it takes them: each at most 3
   * </pre>
   */
  @Test
  void offer_traceKeepsComingWhileHandoffRefuses_noFragmentExceedsTheLimit() {
    TraceAssembler assembler = assembler(100, 3);
    handoff.refusing = true;
    for (long spanId = 1; spanId <= 10; spanId += 2) {
      assertThat(assembler.offer(List.of(span(1, spanId), span(1, spanId + 1))))
          .isEqualTo(OfferResult.ACCEPTED);
    }
    assertThat(assembler.bufferedSpans()).isEqualTo(10);

    handoff.refusing = false;
    assertThat(assembler.completeAll(Completion.SHUTDOWN)).isTrue();

    assertThat(handoff.traces).extracting(CompletedTrace::spanCount).containsExactly(3, 3, 3, 1);
    assertThat(handoff.traces).flatExtracting(CompletedTrace::spans)
        .extracting(SpanRecord::spanId).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L);
    assertThat(handoff.traces).extracting(CompletedTrace::fragment)
        .containsExactly(false, true, true, true);
    assertThat(assembler.bufferedSpans()).isZero();
  }

  @Test
  void sweep_traceStillReceivingAtMaxAge_completesWithMaxAge() {
    TraceAssembler assembler = assembler(1000, 1000);
    for (int second = 0; second < 60; second++) {
      assembler.offer(List.of(span(1, second + 1)));
      time.advance(Duration.ofSeconds(1));
      assembler.sweep();
    }

    assertThat(handoff.traces).singleElement().satisfies(trace -> {
      assertThat(trace.completion()).isEqualTo(Completion.MAX_AGE);
      assertThat(trace.spanCount()).isEqualTo(60);
    });
  }

  @Test
  void offer_bufferFull_evictsOldestTraceFirst() {
    TraceAssembler assembler = assembler(4, 100);
    assembler.offer(List.of(span(1, 1), span(1, 2)));
    time.advance(Duration.ofMillis(1));
    assembler.offer(List.of(span(2, 1), span(2, 2)));
    time.advance(Duration.ofMillis(1));

    assertThat(assembler.offer(List.of(span(3, 1)))).isEqualTo(OfferResult.ACCEPTED);

    assertThat(handoff.traces).singleElement().satisfies(trace -> {
      assertThat(trace.traceId()).isEqualTo(new TraceId(0, 1));
      assertThat(trace.completion()).isEqualTo(Completion.EVICTED);
    });
    assertThat(assembler.bufferedSpans()).isEqualTo(3);
  }

  @Test
  void offer_bufferFullAndHandoffRefusing_refusesWholeRequest() {
    TraceAssembler assembler = assembler(4, 100);
    assembler.offer(List.of(span(1, 1), span(1, 2), span(2, 1)));
    handoff.refusing = true;

    assertThat(assembler.offer(List.of(span(3, 1), span(3, 2)))).isEqualTo(OfferResult.REFUSED_FULL);

    assertThat(assembler.bufferedSpans()).isEqualTo(3);
    handoff.refusing = false;
    time.advance(TIMEOUT);
    assembler.sweep();
    assertThat(handoff.traces).extracting(CompletedTrace::traceId)
        .containsExactlyInAnyOrder(new TraceId(0, 1), new TraceId(0, 2));
  }

  @Test
  void canMakeRoom_asksTheHandoffForTheOldestTrace_asOfferWouldEvictIt() {
    TraceAssembler assembler = assembler(4, 100);
    assembler.offer(List.of(span(1, 1), span(1, 2), span(1, 3)));
    time.advance(Duration.ofMillis(1));
    assembler.offer(List.of(span(2, 1)));
    handoff.maxTraceSpans = 2; // room for trace 2, not for trace 1, the oldest

    assertThat(assembler.canMakeRoom()).isFalse();
    assertThat(assembler.hasRoomFor(1)).isFalse();
    assertThat(assembler.offer(List.of(span(3, 1)))).isEqualTo(OfferResult.REFUSED_FULL);

    handoff.maxTraceSpans = 3;
    assertThat(assembler.canMakeRoom()).isTrue();
    assertThat(assembler.offer(List.of(span(3, 1)))).isEqualTo(OfferResult.ACCEPTED);
    assertThat(handoff.traces).extracting(CompletedTrace::traceId).containsExactly(new TraceId(0, 1));
  }

  @Test
  void canMakeRoom_emptyBuffer_trueWhateverTheHandoff() {
    TraceAssembler assembler = assembler(4, 100);
    handoff.refusing = true;

    assertThat(assembler.canMakeRoom()).isTrue();
    assertThat(assembler.hasRoomFor(4)).isTrue();
    assertThat(assembler.hasRoomFor(5)).isFalse();
  }

  @Test
  void hasRoomFor_countsWhatIsBuffered() {
    TraceAssembler assembler = assembler(4, 100);
    assembler.offer(List.of(span(1, 1), span(2, 1), span(3, 1)));
    handoff.refusing = true;

    assertThat(assembler.hasRoomFor(1)).isTrue();
    assertThat(assembler.offer(List.of(span(4, 1)))).isEqualTo(OfferResult.ACCEPTED);
    assertThat(assembler.hasRoomFor(1)).isFalse();
    assertThat(assembler.canMakeRoom()).isFalse();
  }

  @Test
  void offer_moreSpansThanTheBufferHolds_refusedAsTooLarge() {
    TraceAssembler assembler = assembler(2, 100);

    assertThat(assembler.offer(List.of(span(1, 1), span(1, 2), span(1, 3))))
        .isEqualTo(OfferResult.REFUSED_TOO_LARGE);

    assertThat(assembler.bufferedSpans()).isZero();
    assertThat(handoff.traces).isEmpty();
  }

  @Test
  void offer_traceReachesSpanLimit_completesAndLaterSpansFormFragment() {
    TraceAssembler assembler = assembler(100, 3);

    assembler.offer(List.of(span(1, 1), span(1, 2), span(1, 3), span(1, 4)));

    assertThat(handoff.traces).singleElement().satisfies(trace -> {
      assertThat(trace.completion()).isEqualTo(Completion.SPAN_LIMIT);
      assertThat(trace.spanCount()).isEqualTo(3);
    });
    time.advance(TIMEOUT);
    assembler.sweep();
    assertThat(handoff.traces.get(1)).satisfies(trace -> {
      assertThat(trace.spans()).extracting(SpanRecord::spanId).containsExactly(4L);
      assertThat(trace.fragment()).isTrue();
    });
    assertThat(listener.lateSpans).hasValue(0);
  }

  @Test
  void offer_spanOfCompletedTrace_countedLateAndCompletedAsFragment() {
    TraceAssembler assembler = assembler(100, 100);
    assembler.offer(List.of(span(1, 1)));
    time.advance(TIMEOUT);
    assembler.sweep();

    assembler.offer(List.of(span(1, 2), span(1, 3)));
    time.advance(TIMEOUT);
    assembler.sweep();

    assertThat(listener.lateSpans).hasValue(2);
    assertThat(handoff.traces).extracting(CompletedTrace::fragment).containsExactly(false, true);
  }

  @Test
  void sweep_handoffRefusing_keepsTracesBufferedUntilItTakesThem() {
    TraceAssembler assembler = assembler(100, 100);
    assembler.offer(List.of(span(1, 1), span(2, 1)));
    time.advance(TIMEOUT);
    handoff.refusing = true;

    assembler.sweep();

    assertThat(assembler.bufferedSpans()).isEqualTo(2);
    handoff.refusing = false;
    assembler.sweep();
    assertThat(handoff.traces).hasSize(2);
    assertThat(listener.completedTraces).hasValue(2);
  }

  @Test
  void completeAll_shutdown_handsOnEveryOpenTrace() {
    TraceAssembler assembler = assembler(100, 100);
    assembler.offer(List.of(span(1, 1), span(2, 1), span(2, 2), span(3, 1)));

    assertThat(assembler.completeAll(Completion.SHUTDOWN)).isTrue();

    assertThat(handoff.traces).hasSize(3)
        .allSatisfy(trace -> assertThat(trace.completion()).isEqualTo(Completion.SHUTDOWN));
    assertThat(assembler.bufferedSpans()).isZero();
  }

  @Test
  void offer_concurrentRequests_everySpanBufferedOrHandedOnOrRefused() throws Exception {
    TraceAssembler assembler = assembler(500, 50);
    int threads = 4;
    int requestsPerThread = 500;
    AtomicInteger accepted = new AtomicInteger();
    AtomicInteger refused = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      futures.add(pool.submit(() -> {
        for (int r = 0; r < requestsPerThread; r++) {
          long trace = thread * 1000L + r % 37;
          List<SpanRecord> request = List.of(span(trace, 2L * r + 1), span(trace, 2L * r + 2));
          if (assembler.offer(request) == OfferResult.ACCEPTED) {
            accepted.addAndGet(request.size());
          } else {
            refused.addAndGet(request.size());
          }
          if (r % 50 == 0) {
            handoff.refusing = !handoff.refusing;
          }
        }
      }));
    }
    for (Future<?> future : futures) {
      future.get(30, TimeUnit.SECONDS);
    }
    pool.shutdown();

    assertThat(accepted.get() + refused.get()).isEqualTo(threads * requestsPerThread * 2);
    assertThat(accepted.get()).isEqualTo(assembler.bufferedSpans() + handoff.spanCount());
    assertThat(assembler.bufferedSpans()).isLessThanOrEqualTo(500);
  }

  @Test
  void constructor_invalidPolicy_namesTheField() {
    assertThatThrownBy(() -> new AssemblyPolicy(Duration.ZERO, MAX_AGE, 1, 1, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("traceTimeout");
    assertThatThrownBy(() -> new AssemblyPolicy(TIMEOUT, MAX_AGE, 0, 1, 1))
        .hasMessageContaining("maxBufferedSpans");
  }

  private static final class CountingListener implements AssemblyListener {
    final AtomicInteger lateSpans = new AtomicInteger();
    final AtomicInteger completedTraces = new AtomicInteger();

    @Override
    public void onLateSpans(int count) {
      lateSpans.addAndGet(count);
    }

    @Override
    public void onTraceCompleted(CompletedTrace trace) {
      completedTraces.incrementAndGet();
    }

    @Override
    public void onSinkFailure(CompletedTrace trace, RuntimeException failure) {}
  }
}
