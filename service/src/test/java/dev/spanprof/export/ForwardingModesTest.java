package dev.spanprof.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.span.TraceId;
import dev.spanprof.span.store.SpanStore;
import dev.spanprof.testing.GrpcOtlpReceiver;
import dev.spanprof.testing.Meters;
import dev.spanprof.testing.Otlp;
import dev.spanprof.testing.Ports;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.env.Environment;
import io.micronaut.runtime.server.EmbeddedServer;
import io.opentelemetry.proto.common.v1.KeyValue;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Pass-through forwarding (pushing back on ingest when the next hop is slower), and forwarding
 * what is buffered when the service shuts down.
 */
class ForwardingModesTest {

  @Test
  void passthrough_forwardsOnReceiptWithoutWaitingOrEnriching() throws Exception {
    SpanStore store;
    try (GrpcOtlpReceiver receiver = GrpcOtlpReceiver.plaintext();
        EmbeddedServer server = start(receiver, Map.of("spanprof.export.mode", "passthrough"))) {
      store = server.getApplicationContext().getBean(SpanStore.class);
      assertThat(post(server, new TraceId(0xAA, 1))).isEqualTo(200);

      // The trace is still open (time never moves here), yet its spans are already forwarded.
      assertThat(receiver.await(span -> true, 2, Duration.ofSeconds(30)))
          .allSatisfy(span -> assertThat(span.span().getAttributesList())
              .extracting(KeyValue::getKey).noneMatch(key -> key.startsWith("spanprof.")));
    }
    // Forwarded, then analysed at shutdown: both holders gave the spans' bytes back.
    assertThat(store.slabsHoldingSpans()).isZero();
  }

  @Test
  void passthrough_nextHopSlowerThanIngest_fullQueueRefusesRequestsInsteadOfDropping()
      throws Exception {
    SpanStore store;
    try (GrpcOtlpReceiver receiver = GrpcOtlpReceiver.plaintext();
        EmbeddedServer server = start(receiver, Map.of("spanprof.export.mode", "passthrough",
            "spanprof.export.queue-spans", "4", "spanprof.export.num-consumers", "1",
            "spanprof.export.max-batch-spans", "2"))) {
      store = server.getApplicationContext().getBean(SpanStore.class);
      receiver.holdRequests();
      assertThat(post(server, new TraceId(0xCC, 1))).isEqualTo(200);
      receiver.awaitArrived(1, Duration.ofSeconds(30));
      // One batch held in flight; two more requests fill the queue; the next is refused.
      assertThat(post(server, new TraceId(0xCC, 2))).isEqualTo(200);
      assertThat(post(server, new TraceId(0xCC, 3))).isEqualTo(200);
      assertThat(post(server, new TraceId(0xCC, 4))).isEqualTo(429);
      // Refused before it is decoded: spans that are not spans inside get 429, not 400.
      assertThat(post(server, Otlp.twoSpansMalformedInside())).isEqualTo(429);

      receiver.releaseRequests();
      receiver.await(span -> true, 6, Duration.ofSeconds(30));
      assertThat(server.getApplicationContext().getBean(Forwarder.class)
          .awaitSent(Duration.ofSeconds(30))).isTrue();
      Meters meters = new Meters(server.getApplicationContext().getBean(MeterRegistry.class));
      assertThat(meters.count("spanprof.exported.spans")).isEqualTo(6);
      assertThat(meters.count("spanprof.refused.spans", "transport", "http", "reason",
          "buffer_full")).isEqualTo(4);
      assertThat(server.getApplicationContext().getBean(MeterRegistry.class)
          .find("spanprof.export.failed.spans").counters())
          .allSatisfy(failed -> assertThat(failed.count()).isZero());
    }
    // Refused, forwarded, analysed: every span's bytes given back.
    assertThat(store.slabsHoldingSpans()).isZero();
  }

  @Test
  void shutdown_completesBufferedTracesAndSendsThemBeforeTheContextCloses() throws Exception {
    try (GrpcOtlpReceiver receiver = GrpcOtlpReceiver.plaintext()) {
      EmbeddedServer server = start(receiver, Map.of());
      MeterRegistry registry = server.getApplicationContext().getBean(MeterRegistry.class);
      SpanStore store = server.getApplicationContext().getBean(SpanStore.class);
      assertThat(post(server, new TraceId(0xBB, 1))).isEqualTo(200);
      assertThat(receiver.attempts()).isZero();
      assertThat(store.slabsHoldingSpans()).as("buffered").isOne();

      server.getApplicationContext().close();

      assertThat(receiver.requests()).isNotEmpty();
      assertThat(registry.get("spanprof.exported.spans").counter().count()).isEqualTo(2);
      // Analysed, enriched, forwarded: the spans' bytes given back by both holders.
      assertThat(store.slabsHoldingSpans()).isZero();
    }
  }

  private static EmbeddedServer start(GrpcOtlpReceiver receiver, Map<String, Object> extra) {
    Map<String, Object> properties = new HashMap<>(Map.of(
        "test.time", "manual",
        "spanprof.export.endpoint", "http://localhost:" + receiver.port(),
        "spanprof.export.flush-interval", "10ms"));
    properties.putAll(extra);
    return ApplicationContext.run(EmbeddedServer.class, properties, Environment.TEST);
  }

  private static int post(EmbeddedServer server, TraceId trace) throws Exception {
    return post(server,
        Otlp.request("svc", Otlp.span(trace, 1), Otlp.span(trace, 2)).toByteArray());
  }

  private static int post(EmbeddedServer server, byte[] body) throws Exception {
    return HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create(Ports.of(server.getApplicationContext()).httpUrl("/v1/traces")))
            .header("Content-Type", "application/x-protobuf")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build(),
        HttpResponse.BodyHandlers.ofString()).statusCode();
  }
}
