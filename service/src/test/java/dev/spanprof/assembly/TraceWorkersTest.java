package dev.spanprof.assembly;

import static dev.spanprof.analysis.TestSpans.span;
import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.TraceId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TraceWorkersTest {

  private final CountDownLatch release = new CountDownLatch(1);
  private final ConcurrentLinkedQueue<CompletedTrace> processed = new ConcurrentLinkedQueue<>();
  private final AtomicReference<RuntimeException> reportedFailure = new AtomicReference<>();
  private TraceWorkers workers;

  /** One worker whose sink waits for {@link #release}, so traces pile up in the queue. */
  private TraceWorkers blockedWorkers(long maxQueuedSpans) {
    TraceSink sink = trace -> {
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (trace.traceId().low() == 666) {
        throw new IllegalStateException("analysis bug");
      }
      processed.add(trace);
    };
    workers = new TraceWorkers(1, maxQueuedSpans, sink, new AssemblyListener() {
      @Override
      public void onLateSpans(int count) {}

      @Override
      public void onTraceCompleted(CompletedTrace trace) {}

      @Override
      public void onSinkFailure(CompletedTrace trace, RuntimeException failure) {
        reportedFailure.set(failure);
      }
    });
    return workers;
  }

  @AfterEach
  void stop() throws InterruptedException {
    release.countDown();
    workers.shutdown(Duration.ofSeconds(10));
  }

  @Test
  void offer_queueAtItsBound_refusesUntilSpansAreProcessed() throws Exception {
    TraceWorkers workers = blockedWorkers(5);

    assertThat(workers.offer(trace(1, 3))).isTrue();
    assertThat(workers.offer(trace(2, 3))).isFalse();
    assertThat(workers.offer(trace(3, 2))).isTrue();
    assertThat(workers.queuedSpans()).isEqualTo(5);

    release.countDown();
    assertThat(workers.shutdown(Duration.ofSeconds(10))).isTrue();
    assertThat(processed).extracting(trace -> trace.traceId().low()).containsExactly(1L, 3L);
    assertThat(workers.queuedSpans()).isZero();
  }

  @Test
  void offer_sinkWithoutRoom_refusedAndNothingQueued_thenTakenOnceThereIsRoom() throws Exception {
    List<String> asked = new ArrayList<>();
    AtomicReference<Boolean> room = new AtomicReference<>(false);
    workers = new TraceWorkers(1, 100, new TraceSink() {
      @Override
      public void accept(CompletedTrace trace) {
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        processed.add(trace);
      }

      @Override
      public boolean hasRoomFor(long queuedSpans, int traceSpans) {
        synchronized (asked) {
          asked.add(queuedSpans + "+" + traceSpans);
        }
        return room.get();
      }
    }, AssemblyListener.NOOP);

    assertThat(workers.hasRoomFor(3)).isFalse();
    assertThat(workers.offer(trace(1, 3))).isFalse();
    assertThat(workers.queuedSpans()).isZero();
    room.set(true);
    assertThat(workers.offer(trace(1, 3))).isTrue();
    assertThat(workers.offer(trace(2, 4))).isTrue();
    synchronized (asked) {
      assertThat(asked).containsExactly("0+3", "0+3", "0+3", "3+4");
    }

    workers.beginDrain();
    room.set(false);
    assertThat(workers.offer(trace(3, 1))).as("draining for shutdown: bound lifted").isTrue();
    release.countDown();
    assertThat(workers.shutdown(Duration.ofSeconds(10))).isTrue();
    assertThat(processed).extracting(trace -> trace.traceId().low()).containsExactly(1L, 2L, 3L);
  }

  @Test
  void hasRoomFor_answersAsOfferWould_withoutQueueing() {
    TraceWorkers workers = blockedWorkers(5);
    assertThat(workers.hasRoomFor(10)).as("larger than the bound, even when empty").isFalse();
    workers.offer(trace(1, 3));

    assertThat(workers.hasRoomFor(2)).isTrue();
    assertThat(workers.hasRoomFor(3)).isFalse();
    assertThat(workers.queuedSpans()).isEqualTo(3);
    workers.beginDrain();
    assertThat(workers.hasRoomFor(3)).as("draining for shutdown: bound lifted").isTrue();
  }

  @Test
  void offer_traceLargerThanTheBound_refusedEvenWhenTheQueueIsEmpty() {
    TraceWorkers workers = blockedWorkers(2);

    assertThat(workers.offer(trace(1, 10))).isFalse();
    assertThat(workers.queuedSpans()).isZero();
    assertThat(workers.offer(trace(2, 2))).isTrue();
  }

  @Test
  void beginDrain_liftsTheBound() throws Exception {
    TraceWorkers workers = blockedWorkers(2);
    workers.offer(trace(1, 2));

    workers.beginDrain();

    assertThat(workers.offer(trace(2, 5))).isTrue();
    release.countDown();
    assertThat(workers.shutdown(Duration.ofSeconds(10))).isTrue();
    assertThat(processed).hasSize(2);
  }

  @Test
  void offer_sinkThrows_reportsFailureAndKeepsWorking() throws Exception {
    TraceWorkers workers = blockedWorkers(100);

    workers.offer(trace(666, 1));
    workers.offer(trace(2, 1));
    release.countDown();

    assertThat(workers.shutdown(Duration.ofSeconds(10))).isTrue();
    assertThat(reportedFailure.get()).hasMessage("analysis bug");
    assertThat(processed).extracting(trace -> trace.traceId().low()).containsExactly(2L);
    assertThat(workers.queuedSpans()).isZero();
  }

  @Test
  void offer_afterShutdown_refuses() throws Exception {
    TraceWorkers workers = blockedWorkers(100);
    release.countDown();
    workers.shutdown(Duration.ofSeconds(10));

    assertThat(workers.offer(trace(1, 1))).isFalse();
    assertThat(workers.queuedSpans()).isZero();
    assertThat(release.await(0, TimeUnit.SECONDS)).isTrue();
  }

  private static CompletedTrace trace(long traceLow, int spans) {
    List<SpanRecord> records = new ArrayList<>();
    for (int i = 1; i <= spans; i++) {
      records.add(span(traceLow, i));
    }
    return new CompletedTrace(new TraceId(0, traceLow), records, Completion.TIMEOUT, false, 0);
  }
}
