package dev.spanprof.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.span.TraceId;
import dev.spanprof.testing.Meters;
import dev.spanprof.testing.Otlp;
import dev.spanprof.testing.Ports;
import dev.spanprof.testing.TestTraffic;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.ApplicationContext;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The memory guard on the real heap: the limit is set 256 MB above what the test JVM holds, and a
 * live array that fills that room and more puts the heap over it at the next collection; requests
 * are refused and readiness is DOWN until a collection finds the array gone.
 */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MemoryLimitTest implements TestPropertyProvider {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  @Inject ApplicationContext context;
  @Inject MemoryGuard guard;
  @Inject MeterRegistry registry;

  private final HttpClient http = HttpClient.newHttpClient();

  @Override
  public Map<String, String> getProperties() {
    System.gc();
    long max = Runtime.getRuntime().maxMemory();
    long held = Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
    long percentage = Math.min(100, (held + (256L << 20)) * 100 / max + 1);
    return Map.of("spanprof.memory.limit-percentage", String.valueOf(percentage));
  }

  @Test
  void heapOverTheLimitAfterCollection_requestsRefused_readinessDown_untilBelowAgain()
      throws Exception {
    System.gc(); // so that what the heap holds now is live, not garbage
    long held = Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
    byte[][] live = {new byte[(int) Math.min(Integer.MAX_VALUE - 8,
        Math.max(0, guard.limitBytes() - held) + (128L << 20))]};
    System.gc();
    await(guard::isOver);

    assertThat(TestTraffic.postProtobuf(context,
        Otlp.rootAndChildren("svc", new TraceId(0x3E3, 1), 3))).isEqualTo(429);
    assertThat(new Meters(registry).count("spanprof.refused.spans", "transport", "http",
        "reason", "memory_limit")).isEqualTo(3);
    HttpResponse<String> readiness = readiness();
    assertThat(readiness.statusCode()).isEqualTo(503);
    assertThat(readiness.body()).contains("spanprof.memory.limit-percentage");
    assertThat(new Meters(registry).gauge("spanprof.memory.limited")).isEqualTo(1);

    live[0] = null;
    // The guard asks for full collections while over; one of them finds the array gone.
    await(() -> !guard.isOver());
    assertThat(readiness().statusCode()).isEqualTo(200);
  }

  private HttpResponse<String> readiness() throws Exception {
    return http.send(HttpRequest.newBuilder(
            URI.create(Ports.of(context).managementUrl("/health/readiness"))).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static void await(BooleanSupplier condition) {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waited %s", TIMEOUT).isLessThan(deadline);
      Thread.onSpinWait();
    }
  }
}
