package dev.spanprof.export;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.spanprof.assembly.TraceWorkers;
import dev.spanprof.span.TraceId;
import dev.spanprof.testing.Meters;
import dev.spanprof.testing.Otlp;
import dev.spanprof.testing.RecordingProfiles;
import dev.spanprof.testing.TestTraffic;
import io.grpc.Status;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The next hop fails: down for 30 s (on a retry clock that moves on instead of waiting), then
 * refusing one batch as invalid. Nothing within the queue bound is lost, retries back off, and
 * every span is accounted for exactly.
 */
@MicronautTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Property(name = "test.time", value = "manual")
@Property(name = "test.profiles", value = "recording")
class ForwardingFailureTest extends GrpcNextHopTest {

  private static final int SPANS_PER_TRACE = 4;

  @Inject TraceWorkers workers;
  @Inject RecordingProfiles analysed;

  ForwardingFailureTest() throws IOException {}

  @Override
  Map<String, String> configuration() {
    return Map.of(
        "spanprof.export.flush-interval", "10ms",
        // One batch at a time, so the waits recorded are one batch's backoff sequence.
        "spanprof.export.num-consumers", "1",
        "spanprof.export.initial-backoff", "1s",
        "spanprof.export.max-backoff", "30s");
  }

  @Test
  @Order(1)
  void nextHopDownFor30Seconds_retriedWithBackoff_nothingLost() throws Exception {
    // Down from the start until 30 s after the traces complete: completing them moves the
    // clock on too, and the waits must cover the 30 s.
    AtomicLong downUntil = new AtomicLong(Long.MAX_VALUE);
    receiver.failWith(request -> time.nanoTime() < downUntil.get()
        ? Status.UNAVAILABLE.withDescription("restarting") : null);

    for (int t = 1; t <= 3; t++) {
      send(new TraceId(0xD0, t));
    }
    complete();
    downUntil.set(time.nanoTime() + Duration.ofSeconds(30).toNanos());
    receiver.await(span -> true, 3 * SPANS_PER_TRACE, Duration.ofSeconds(30));
    assertThat(forwarder.awaitSent(Duration.ofSeconds(30))).isTrue();

    List<Duration> sleeps = time.sleeps();
    assertThat(sleeps.stream().mapToLong(Duration::toNanos).sum())
        .isGreaterThanOrEqualTo(Duration.ofSeconds(30).toNanos());
    for (int i = 0; i < Math.min(sleeps.size(), 5); i++) {
      // Exponential with equal jitter: between half and all of 1 s · 2^i (capped at 30 s).
      long base = Math.min(Duration.ofSeconds(1L << i).toNanos(), Duration.ofSeconds(30).toNanos());
      assertThat(sleeps.get(i).toNanos()).as("wait %d", i).isBetween(base / 2, base);
    }
    Meters meters = new Meters(registry);
    assertThat(meters.count("spanprof.export.retries", "reason", "unavailable")).isEqualTo(sleeps.size());
    assertThat(meters.count("spanprof.exported.spans")).isEqualTo(3 * SPANS_PER_TRACE);
    assertThat(failed()).isZero();
    assertThat(forwarder.queuedSpans()).isZero();
  }

  @Test
  @Order(2)
  void nextHopAnswersInvalidArgument_batchDroppedAndCounted_forwardingContinues() throws Exception {
    TraceId bad = new TraceId(0xBAD, 1);
    receiver.failWith(request -> contains(request, bad)
        ? Status.INVALID_ARGUMENT.withDescription("span too large") : null);
    int attempts = receiver.attempts();

    send(bad);
    complete();
    receiver.awaitAttempts(attempts + 1, Duration.ofSeconds(30));
    TraceId good = new TraceId(0x600D, 1);
    send(good);
    complete();
    receiver.await(span -> span.span().getTraceId().equals(bytes(good)), SPANS_PER_TRACE,
        Duration.ofSeconds(30));
    assertThat(forwarder.awaitSent(Duration.ofSeconds(30))).isTrue();

    Meters meters = new Meters(registry);
    assertThat(meters.count("spanprof.export.failed.spans", "reason", "invalid_argument"))
        .isEqualTo(SPANS_PER_TRACE);
    assertThat(forwarder.lastError()).isEqualTo("INVALID_ARGUMENT: span too large");
  }

  @Test
  @Order(3)
  void accounting_receivedIsExportedPlusFailedPlusBufferedPlusQueued() {
    Meters meters = new Meters(registry);

    double received = meters.count("spanprof.received.spans", "transport", "http");
    double exported = meters.count("spanprof.exported.spans");
    double buffered = assembler.bufferedSpans() + workers.queuedSpans() + forwarder.queuedSpans();

    assertThat(received).isEqualTo(5 * SPANS_PER_TRACE);
    assertThat(exported + failed() + buffered).isEqualTo(received);
  }

  private double failed() {
    return new Meters(registry).sum("spanprof.export.failed.spans");
  }

  private void send(TraceId trace) throws Exception {
    assertThat(TestTraffic.postProtobuf(context, Otlp.rootAndChildren("svc", trace,
        SPANS_PER_TRACE))).isEqualTo(200);
  }

  private static ByteString bytes(TraceId trace) {
    return ByteString.copyFrom(ByteBuffer.allocate(16).putLong(trace.high()).putLong(trace.low()).array());
  }

  private static boolean contains(ExportTraceServiceRequest request, TraceId trace) {
    return request.getResourceSpansList().stream()
        .flatMap(resource -> resource.getScopeSpansList().stream())
        .flatMap(scope -> scope.getSpansList().stream())
        .anyMatch(span -> span.getTraceId().equals(bytes(trace)));
  }
}
