package dev.spanprof.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.span.TraceId;
import dev.spanprof.testing.Meters;
import dev.spanprof.testing.Otlp;
import dev.spanprof.testing.TestTraffic;
import io.grpc.Status;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Forwarding resumes as soon as the next hop is back: a sender waiting out its backoff retries
 * the moment another sender's request goes through, not when its own wait ends. Here the wait
 * never ends by itself (held), so only the wake-up can send the first batch.
 *
 * <pre>
 *   sender 1  |A fails|~~~~~~~~~~ backoff (held) ~~~~~~~~~|A|      A retried on the wake-up
 *   sender 2                           |B goes through|──wake
 *   next hop  |down ............|up ..............................
 * </pre>
 */
@MicronautTest
@Property(name = "test.time", value = "manual")
@Property(name = "test.profiles", value = "recording")
class ForwardingResumeTest extends GrpcNextHopTest {

  private static final int SPANS_PER_TRACE = 4;


  ForwardingResumeTest() throws IOException {}

  @Override
  Map<String, String> configuration() {
    return Map.of(
        "spanprof.export.flush-interval", "10ms",
        "spanprof.export.num-consumers", "2",
        "spanprof.export.max-batch-spans", String.valueOf(SPANS_PER_TRACE));
  }

  @Test
  void nextHopBack_senderInBackoffRetriesWhenAnotherGetsThrough() throws Exception {
    time.holdSleeps();
    receiver.failWith(request -> Status.UNAVAILABLE.withDescription("down"));
    send(new TraceId(0xA, 1));
    time.awaitSleeps(1, Duration.ofSeconds(30));

    receiver.failWith(request -> null);
    send(new TraceId(0xB, 1));

    receiver.await(span -> true, 2 * SPANS_PER_TRACE, Duration.ofSeconds(30));
    assertThat(forwarder.awaitSent(Duration.ofSeconds(30))).isTrue();
    Meters meters = new Meters(registry);
    assertThat(meters.count("spanprof.exported.spans")).isEqualTo(2 * SPANS_PER_TRACE);
    assertThat(meters.sum("spanprof.export.failed.spans")).isZero();
    assertThat(time.sleeps()).as("A waited once, and was woken").hasSize(1);
  }

  private void send(TraceId trace) throws Exception {
    assertThat(TestTraffic.postProtobuf(context, Otlp.rootAndChildren("svc", trace,
        SPANS_PER_TRACE))).isEqualTo(200);
    complete();
  }
}
