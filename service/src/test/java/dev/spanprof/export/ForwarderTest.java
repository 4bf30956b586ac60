package dev.spanprof.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.config.ExportConfiguration;
import dev.spanprof.config.ExportConfiguration.Mode;
import dev.spanprof.golden.GoldenCases;
import dev.spanprof.ingest.OtlpTestSpans;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.testing.GrpcOtlpReceiver;
import dev.spanprof.time.TimeSource;
import io.grpc.Status;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The Forwarder on its own, without a service around it: what it sends, in which mode it is on,
 * what its queue takes, and what the drain gives up, each counted with its reason.
 */
class ForwarderTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final GrpcOtlpReceiver receiver;
  private final Counting listener = new Counting();
  private Forwarder forwarder;

  ForwarderTest() throws Exception {
    receiver = GrpcOtlpReceiver.plaintext();
  }

  @AfterEach
  void stop() throws Exception {
    if (forwarder != null) {
      forwarder.drain(Duration.ofSeconds(1));
      forwarder.close();
    }
    receiver.close();
  }

  @Test
  void forwards_onlyInItsModeAndWithAnEndpoint() {
    forwarder = start(configuration("enriched", 1000));
    Forwarder off = new Forwarder(new ExportConfiguration(), listener, TimeSource.system(), null);

    assertThat(forwarder.forwards(Mode.ENRICHED)).isTrue();
    assertThat(forwarder.forwards(Mode.PASSTHROUGH)).isFalse();
    assertThat(off.forwards(Mode.ENRICHED)).isFalse();
    assertThat(off.forwards(Mode.PASSTHROUGH)).isFalse();
  }

  @Test
  void enqueue_everySpanReachesTheNextHopAndIsCounted() throws Exception {
    forwarder = start(configuration("passthrough", 1000));
    List<SpanRecord> spans = spans();

    forwarder.enqueue(spans.stream().map(ExportEntry::asReceived).toList());

    assertThat(receiver.await(span -> true, spans.size(), TIMEOUT)).hasSize(spans.size());
    assertThat(forwarder.awaitSent(TIMEOUT)).isTrue();
    assertThat(listener.exported.get()).isEqualTo(spans.size());
    assertThat(listener.failed).isEmpty();
  }

  @Test
  void hasRoomFor_theQueuesBound() {
    forwarder = start(configuration("passthrough", 10));

    assertThat(forwarder.hasRoomFor(0, 10)).isTrue();
    assertThat(forwarder.hasRoomFor(5, 6)).isFalse();
  }

  @Test
  void drain_nextHopDown_givesUpWhatIsLeftAsShutdown() throws Exception {
    receiver.failWith(request -> Status.UNAVAILABLE.withDescription("down"));
    forwarder = start(configuration("passthrough", 1000));
    List<SpanRecord> spans = spans();
    forwarder.enqueue(spans.stream().map(ExportEntry::asReceived).toList());
    receiver.awaitAttempts(1, TIMEOUT);

    forwarder.drain(Duration.ofMillis(300));

    assertThat(listener.failed).containsEntry("shutdown", (long) spans.size());
    assertThat(listener.exported.get()).isZero();
    assertThat(forwarder.queuedSpans()).isZero();
  }

  private Forwarder start(ExportConfiguration configuration) {
    return new Forwarder(configuration, listener, TimeSource.system(), null);
  }

  private ExportConfiguration configuration(String mode, int queueSpans) {
    ExportConfiguration configuration = new ExportConfiguration();
    configuration.setEndpoint("http://localhost:" + receiver.port());
    configuration.setMode(mode);
    configuration.setCompression("none");
    configuration.setQueueSpans(queueSpans);
    configuration.setFlushInterval(Duration.ofMillis(10));
    configuration.setInitialBackoff(Duration.ofMillis(10));
    configuration.setMaxBackoff(Duration.ofMillis(50));
    return configuration;
  }

  private static List<SpanRecord> spans() {
    return OtlpTestSpans.fromJson(GoldenCases.otlpJson("fanout-self-time"));
  }

  /** Counts what the Forwarder reports, by reason for what it gave up. */
  private static final class Counting implements ExportListener {
    final AtomicLong exported = new AtomicLong();
    final Map<String, Long> failed = new ConcurrentHashMap<>();

    @Override
    public void onExported(long spans) {
      exported.addAndGet(spans);
    }

    @Override
    public void onFailed(String reason, long spans) {
      failed.merge(reason, spans, Long::sum);
    }

    @Override
    public void onRetry(String reason) {}

    @Override
    public void onRepaired(long spans) {}

    @Override
    public void onRequest(Duration latency) {}
  }
}
