package dev.spanprof.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.span.TraceId;
import dev.spanprof.testing.Meters;
import dev.spanprof.testing.Otlp;
import dev.spanprof.testing.RecordingProfiles;
import dev.spanprof.testing.TestTraffic;
import io.grpc.Status;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A next hop slower than the spans coming in, or failing, holds the analysis back, so ingest
 * refuses and no analysed span is dropped; once it takes spans again, everything accepted is
 * forwarded.
 *
 * <pre>
 *   forwarding queue 20 spans, one sender, batches of 10; span buffer 30; traces of 10 spans
 *   held next hop:    one batch in flight, the queue fills, traces stay buffered, ingest refuses
 *   released:         everything accepted is analysed and forwarded
 *   failing next hop: the same, with the first batch waiting out its retries
 * </pre>
 */
@MicronautTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Property(name = "test.time", value = "manual")
@Property(name = "test.profiles", value = "recording")
class ForwardingBackpressureTest extends GrpcNextHopTest {

  private static final int SPANS_PER_TRACE = 10;

  @Inject RecordingProfiles analysed;

  ForwardingBackpressureTest() throws IOException {}

  @Override
  Map<String, String> configuration() {
    return Map.of(
        "spanprof.export.flush-interval", "10ms",
        "spanprof.export.num-consumers", "1",
        "spanprof.export.max-batch-spans", "10",
        "spanprof.export.queue-spans", "20",
        "spanprof.assembly.max-buffered-spans", "30",
        "spanprof.assembly.max-spans-per-trace", "20",
        "spanprof.analysis.workers", "1",
        "spanprof.analysis.max-queued-spans", "1000");
  }

  @Test
  @Order(1)
  void slowNextHop_ingestRefusesInsteadOfTheQueueDropping_thenEverythingAcceptedIsForwarded()
      throws Exception {
    receiver.holdRequests();
    TraceId first = new TraceId(0x510, 1);
    assertThat(send(first)).isEqualTo(200);
    complete();
    analysed.await(first, Duration.ofSeconds(30));
    receiver.awaitArrived(1, Duration.ofSeconds(30));

    // Each trace completes as soon as it is buffered; the sweep hands it over while the queue
    // has room. Once it has none, traces stay buffered until the buffer refuses.
    List<TraceId> acceptedTraces = new ArrayList<>(List.of(first));
    int status = 200;
    for (int t = 2; t <= 20 && status == 200; t++) {
      TraceId trace = new TraceId(0x510, t);
      status = send(trace);
      if (status == 200) {
        acceptedTraces.add(trace);
        complete();
      }
    }
    int accepted = acceptedTraces.size();
    assertThat(status).as("refused once the queue and then the buffer are full").isEqualTo(429);
    assertThat(failed()).as("nothing dropped from the queue").isZero();
    assertThat(forwarder.queuedSpans()).as("waiting 20 at most, 10 in flight")
        .isLessThanOrEqualTo(30);
    assertThat(assembler.bufferedSpans()).isPositive();
    Meters meters = new Meters(registry);
    assertThat(meters.count("spanprof.refused.spans", "transport", "http", "reason",
        "buffer_full")).isEqualTo(SPANS_PER_TRACE);

    receiver.releaseRequests();
    // Every buffered trace is due; the service's own sweeps hand them over as the queue drains.
    time.advance(Duration.ofSeconds(5));
    for (TraceId trace : acceptedTraces) {
      analysed.await(trace, Duration.ofSeconds(30));
    }
    receiver.await(span -> true, accepted * SPANS_PER_TRACE, Duration.ofSeconds(30));
    assertThat(forwarder.awaitSent(Duration.ofSeconds(30))).isTrue();
    assertThat(meters.count("spanprof.exported.spans")).isEqualTo(accepted * SPANS_PER_TRACE);
    assertThat(failed()).isZero();
  }

  @Test
  @Order(2)
  void failingNextHop_ingestRefusesInsteadOfTheQueueDropping_thenEverythingAcceptedIsForwarded()
      throws Exception {
    time.holdSleeps();
    receiver.failWith(request -> Status.UNAVAILABLE.withDescription("down"));
    int waits = time.sleeps().size();
    double refusedBefore = refusedFull();
    TraceId first = new TraceId(0xFA11, 1);
    assertThat(send(first)).isEqualTo(200);
    complete();
    // Its batch failed and waits to be retried: in flight, the queue empty behind it.
    time.awaitSleeps(waits + 1, Duration.ofSeconds(30));

    // Behind it the queue takes two traces, the buffer three more; then ingest refuses.
    List<TraceId> acceptedTraces = new ArrayList<>(List.of(first));
    int status = 200;
    for (int t = 2; t <= 20 && status == 200; t++) {
      TraceId trace = new TraceId(0xFA11, t);
      status = send(trace);
      if (status == 200) {
        acceptedTraces.add(trace);
        complete();
      }
    }
    assertThat(status).isEqualTo(429);
    assertThat(acceptedTraces).hasSize(6);
    assertThat(failed()).as("nothing dropped while the next hop is down").isZero();
    assertThat(refusedFull() - refusedBefore).isEqualTo(SPANS_PER_TRACE);

    receiver.failWith(request -> null);
    time.releaseSleeps();
    time.advance(Duration.ofSeconds(5));
    for (TraceId trace : acceptedTraces) {
      analysed.await(trace, Duration.ofSeconds(30));
    }
    assertThat(forwarder.awaitSent(Duration.ofSeconds(30))).isTrue();
    assertThat(assembler.bufferedSpans()).isZero();
    assertThat(failed()).isZero();
    assertThat(meters().count("spanprof.exported.spans"))
        .isEqualTo(meters().count("spanprof.received.spans", "transport", "http"));
  }

  private double refusedFull() {
    return meters().count("spanprof.refused.spans", "transport", "http", "reason", "buffer_full");
  }

  private double failed() {
    return meters().sum("spanprof.export.failed.spans");
  }

  private int send(TraceId trace) throws Exception {
    return TestTraffic.postProtobuf(context, Otlp.rootAndChildren("svc", trace, SPANS_PER_TRACE));
  }

}
