package dev.spanprof.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.span.TraceId;
import dev.spanprof.spool.Spool;
import dev.spanprof.testing.Otlp;
import dev.spanprof.testing.OtlpReceiver.Received;
import dev.spanprof.testing.TestTraffic;
import io.grpc.Status;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With a spool, an outage longer than memory holds loses nothing and refuses nothing: what the
 * pipeline has no room for waits on disk, and goes on, in order, once the next hop is back.
 *
 * <pre>
 *   memory: forwarding queue 20 spans, analysis queue 10, buffer 30; traces of 10 spans
 *   next hop down:  12 traces accepted, 3 in memory at most, the rest pending on disk
 *   next hop back:  all 120 spans forwarded once, nothing pending
 * </pre>
 */
@MicronautTest
@Property(name = "test.time", value = "manual")
@Property(name = "test.profiles", value = "recording")
class ForwardingSpoolTest extends GrpcNextHopTest {

  private static final int SPANS_PER_TRACE = 10;
  private static final int TRACES = 12;

  @TempDir static Path spoolDirectory;

  @Inject Spool spool;

  ForwardingSpoolTest() throws IOException {}

  @Override
  Map<String, String> configuration() {
    return Map.of(
        "spanprof.export.flush-interval", "10ms",
        "spanprof.export.num-consumers", "1",
        "spanprof.export.max-batch-spans", "10",
        "spanprof.export.queue-spans", "20",
        "spanprof.export.spool.directory", spoolDirectory.toString(),
        "spanprof.assembly.max-buffered-spans", "30",
        "spanprof.assembly.max-spans-per-trace", "10",
        "spanprof.analysis.max-queued-spans", "10",
        "spanprof.analysis.workers", "1");
  }

  @Test
  void nextHopDownLongerThanMemoryHolds_everythingAccepted_thenForwardedOnce() throws Exception {
    time.holdSleeps();
    receiver.failWith(request -> Status.UNAVAILABLE.withDescription("down"));
    for (int t = 1; t <= TRACES; t++) {
      assertThat(TestTraffic.postProtobuf(context,
          Otlp.rootAndChildren("svc", new TraceId(0x5F001, t), SPANS_PER_TRACE)))
          .as("trace %d", t).isEqualTo(200);
      complete();
    }
    assertThat(spool.pendingSpans()).as("what memory could not hold waits on disk")
        .isGreaterThanOrEqualTo((TRACES - 7) * SPANS_PER_TRACE);
    assertThat(meters().sum("spanprof.refused.spans")).isZero();
    assertThat(meters().sum("spanprof.export.failed.spans")).isZero();

    receiver.failWith(request -> null);
    time.releaseSleeps();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (meters().count("spanprof.exported.spans") < TRACES * SPANS_PER_TRACE) {
      assertThat(System.nanoTime()).as("forwarded within a minute").isLessThan(deadline);
      complete();
    }

    List<Received> received = receiver.await(span -> true, TRACES * SPANS_PER_TRACE,
        Duration.ofSeconds(30));
    Set<String> distinct = new HashSet<>();
    received.forEach(span -> distinct.add(span.span().getTraceId() + "/" + span.span().getSpanId()));
    assertThat(distinct).hasSize(TRACES * SPANS_PER_TRACE);
    assertThat(received).hasSize(TRACES * SPANS_PER_TRACE);
    assertThat(forwarder.awaitSent(Duration.ofSeconds(30))).isTrue();
    assertThat(spool.pendingSpans()).isZero();
    assertThat(meters().sum("spanprof.export.failed.spans")).isZero();
  }

}
