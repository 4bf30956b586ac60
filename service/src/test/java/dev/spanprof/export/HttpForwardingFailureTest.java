package dev.spanprof.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.assembly.ManualTimeSource;
import dev.spanprof.span.TraceId;
import dev.spanprof.testing.HttpOtlpReceiver;
import dev.spanprof.testing.HttpOtlpReceiver.Answer;
import dev.spanprof.testing.Meters;
import dev.spanprof.testing.Otlp;
import dev.spanprof.testing.TestTraffic;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import io.opentelemetry.proto.collector.trace.v1.ExportTracePartialSuccess;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import jakarta.inject.Inject;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** OTLP/HTTP answers: 503 with Retry-After, partial success, and a next hop that stays down. */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Property(name = "test.time", value = "manual")
@Property(name = "test.profiles", value = "recording")
class HttpForwardingFailureTest implements TestPropertyProvider {

  private final HttpOtlpReceiver receiver = new HttpOtlpReceiver();

  @Inject ApplicationContext context;
  @Inject ManualTimeSource time;
  @Inject Forwarder forwarder;
  @Inject MeterRegistry registry;

  HttpForwardingFailureTest() throws IOException {}

  @Override
  public Map<String, String> getProperties() {
    return Map.of(
        "spanprof.export.endpoint", "http://localhost:" + receiver.port(),
        "spanprof.export.protocol", "http/protobuf",
        "spanprof.export.compression", "none",
        "spanprof.export.flush-interval", "10ms",
        "spanprof.export.initial-backoff", "1s",
        "spanprof.export.max-elapsed", "60s");
  }

  /** Uncompressed here, as the other OTLP/HTTP tests compress with gzip and zstd. */
  @AfterAll
  void everyRequestWasUncompressed_thenStopReceiver() {
    assertThat(receiver.contentEncodings()).containsOnly("identity");
    receiver.close();
  }

  @Test
  void unavailableWithRetryAfter_waitsAtLeastThatLong() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    receiver.answerWith(request -> calls.getAndIncrement() == 0 ? new Answer(503, "7", null) : null);
    int waits = time.sleeps().size();

    sendAndComplete(new TraceId(0x503, 1));
    assertThat(forwarder.awaitSent(Duration.ofSeconds(30))).isTrue();

    List<Duration> sleeps = time.sleeps();
    assertThat(sleeps).hasSize(waits + 1);
    assertThat(sleeps.get(waits)).isGreaterThanOrEqualTo(Duration.ofSeconds(7));
    assertThat(new Meters(registry).count("spanprof.export.retries", "reason", "http_503")).isEqualTo(1);
  }

  @Test
  void partialSuccess_rejectedSpansCountedTheRestExported() throws Exception {
    byte[] partial = ExportTraceServiceResponse.newBuilder()
        .setPartialSuccess(ExportTracePartialSuccess.newBuilder()
            .setRejectedSpans(1).setErrorMessage("span 2 has no name"))
        .build().toByteArray();
    receiver.answerWith(request -> new Answer(200, null, partial));
    Meters meters = new Meters(registry);
    double exported = meters.count("spanprof.exported.spans");

    sendAndComplete(new TraceId(0x200, 1));
    assertThat(forwarder.awaitSent(Duration.ofSeconds(30))).isTrue();

    assertThat(meters.count("spanprof.export.failed.spans", "reason", "rejected")).isEqualTo(1);
    assertThat(meters.count("spanprof.exported.spans") - exported).isEqualTo(1);
  }

  @Test
  void downForLongerThanMaxElapsed_givenUpAndCounted() throws Exception {
    receiver.answerWith(request -> new Answer(502, null, null));

    sendAndComplete(new TraceId(0x502, 1));
    assertThat(forwarder.awaitSent(Duration.ofSeconds(30))).isTrue();

    assertThat(new Meters(registry).count("spanprof.export.failed.spans", "reason", "retries_exhausted"))
        .isEqualTo(2);
    assertThat(forwarder.lastError()).startsWith("HTTP 502");
  }

  private void sendAndComplete(TraceId trace) throws Exception {
    TestTraffic.post(context, "application/x-protobuf",
        Otlp.request("svc", Otlp.span(trace, 1), Otlp.span(trace, 2)).toByteArray());
    // Analysed means handed to the forwarder: the recording consumer is called after it.
    TestTraffic.complete(context, trace);
  }
}
