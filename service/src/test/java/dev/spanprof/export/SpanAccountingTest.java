package dev.spanprof.export;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.spanprof.assembly.TraceWorkers;
import dev.spanprof.span.TraceId;
import dev.spanprof.testing.Meters;
import dev.spanprof.testing.Otlp;
import dev.spanprof.testing.OtlpReceiver.Received;
import dev.spanprof.testing.TestTraffic;
import io.grpc.Status;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Every span accepted is accounted for, under concurrency, small bounds and a next hop that fails
 * a fifth of its requests for a while and refuses the requests holding poisoned traces: four
 * senders post traces of 10 spans, retrying what is refused as full, while time moves on and the
 * buffer is swept. Meanwhile what is resolved never exceeds what was received, and the bounds
 * hold; at the end each accepted span reached the next hop exactly once or was counted failed
 * (the poisoned ones), and nothing is held.
 */
@MicronautTest
@Property(name = "test.time", value = "manual")
@Property(name = "test.profiles", value = "recording")
class SpanAccountingTest extends GrpcNextHopTest {

  private static final int SENDERS = 4;
  private static final int TRACES_PER_SENDER = 60;
  private static final int SPANS_PER_TRACE = 10;
  private static final int MAX_BUFFERED = 200;
  private static final int MAX_QUEUED = 100;
  private static final int QUEUE_SPANS = 100;

  private final Set<ByteString> poisoned = ConcurrentHashMap.newKeySet();
  private volatile boolean flaky = true;

  @Inject TraceWorkers workers;

  SpanAccountingTest() throws IOException {}

  /**
   * Retries never give up here: each sweep moves the clock they are timed on 5 s on, many times
   * while a batch waits out its backoff, and only the poisoned spans may fail.
   */
  @Override
  Map<String, String> configuration() {
    return Map.of(
        "spanprof.export.max-elapsed", "100000h",
        "spanprof.export.flush-interval", "1ms",
        "spanprof.export.max-batch-spans", "20",
        "spanprof.export.queue-spans", String.valueOf(QUEUE_SPANS),
        "spanprof.assembly.max-buffered-spans", String.valueOf(MAX_BUFFERED),
        "spanprof.assembly.max-spans-per-trace", "50",
        "spanprof.analysis.max-queued-spans", String.valueOf(MAX_QUEUED),
        "spanprof.analysis.workers", "2");
  }

  @Test
  void concurrentSendersFailingNextHop_everyAcceptedSpanForwardedOnceOrCountedFailed()
      throws Exception {
    receiver.failWith(request -> {
      if (containsPoison(request)) {
        return Status.INVALID_ARGUMENT.withDescription("poisoned");
      }
      return flaky && ThreadLocalRandom.current().nextInt(5) == 0
          ? Status.UNAVAILABLE.withDescription("flaky") : null;
    });
    ExecutorService senders = Executors.newFixedThreadPool(SENDERS);
    List<Future<List<TraceId>>> sent = new ArrayList<>();
    for (int s = 0; s < SENDERS; s++) {
      int sender = s;
      sent.add(senders.submit(() -> send(sender)));
    }
    senders.shutdown();
    while (!senders.awaitTermination(1, TimeUnit.MILLISECONDS)) {
      sweepAndCheck();
    }
    flaky = false;
    List<TraceId> accepted = new ArrayList<>();
    for (Future<List<TraceId>> traces : sent) {
      accepted.addAll(traces.get());
    }
    assertThat(accepted).hasSize(SENDERS * TRACES_PER_SENDER);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (held() > 0) {
      assertThat(System.nanoTime()).as("drained within a minute").isLessThan(deadline);
      sweepAndCheck();
    }
    assertThat(forwarder.awaitSent(Duration.ofSeconds(30))).isTrue();

    Map<String, Integer> arrivals = new HashMap<>();
    for (Received span : receiver.await(span -> true, 0, Duration.ZERO)) {
      arrivals.merge(span.span().getTraceId() + "/" + span.span().getSpanId(), 1, Integer::sum);
    }
    assertThat(arrivals.values()).as("no span forwarded twice").allMatch(count -> count == 1);
    int poisonedSpans = poisoned.size() * SPANS_PER_TRACE;
    int total = SENDERS * TRACES_PER_SENDER * SPANS_PER_TRACE;
    assertThat(arrivals).hasSize(total - poisonedSpans);
    Meters meters = new Meters(registry);
    assertThat(meters.count("spanprof.received.spans", "transport", "http")).isEqualTo(total);
    assertThat(meters.count("spanprof.exported.spans")).isEqualTo(total - poisonedSpans);
    assertThat(meters.count("spanprof.export.failed.spans", "reason", "invalid_argument"))
        .isEqualTo(poisonedSpans);
    assertThat(meters.sum("spanprof.export.failed.spans")).isEqualTo(poisonedSpans);
  }

  /** Posts this sender's traces, each until it is accepted; every seventh trace is poisoned. */
  private List<TraceId> send(int sender) throws Exception {
    List<TraceId> accepted = new ArrayList<>();
    for (int t = 0; t < TRACES_PER_SENDER; t++) {
      TraceId trace = new TraceId(0xACC0 + sender, t + 1);
      if (t % 7 == 3) {
        poisoned.add(traceIdBytes(trace));
      }
      int status;
      do {
        status = TestTraffic.postProtobuf(context,
            Otlp.rootAndChildren("svc-" + sender, trace, SPANS_PER_TRACE));
        assertThat(status).isIn(200, 429);
      } while (status != 200);
      accepted.add(trace);
    }
    return accepted;
  }

  /**
   * Completes what is due, and checks what must hold at every moment. Resolved spans are read
   * before received ones, so that a span moving on between the two reads cannot make the check
   * fail falsely.
   */
  private void sweepAndCheck() {
    complete();
    Meters meters = new Meters(registry);
    double resolved = meters.count("spanprof.exported.spans")
        + meters.sum("spanprof.export.failed.spans");
    double received = meters.count("spanprof.received.spans", "transport", "http");
    assertThat(resolved).isLessThanOrEqualTo(received);
    assertThat(assembler.bufferedSpans()).isLessThanOrEqualTo(MAX_BUFFERED);
    assertThat(workers.queuedSpans()).isLessThanOrEqualTo(MAX_QUEUED);
    // Waiting, plus the batches in flight: one per sender thread.
    assertThat(forwarder.queuedSpans()).isLessThanOrEqualTo(QUEUE_SPANS + 4 * 20);
  }

  private long held() {
    return assembler.bufferedSpans() + workers.queuedSpans() + forwarder.queuedSpans();
  }

  private boolean containsPoison(ExportTraceServiceRequest request) {
    Set<ByteString> traces = new HashSet<>();
    request.getResourceSpansList().forEach(resource -> resource.getScopeSpansList()
        .forEach(scope -> scope.getSpansList().forEach(span -> traces.add(span.getTraceId()))));
    traces.retainAll(poisoned);
    return !traces.isEmpty();
  }

  private static ByteString traceIdBytes(TraceId trace) {
    return ByteString.copyFrom(
        ByteBuffer.allocate(16).putLong(trace.high()).putLong(trace.low()).array());
  }
}
