package dev.spanprof.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.spanprof.assembly.ManualTimeSource;
import dev.spanprof.span.TraceId;
import dev.spanprof.stages.PoolService;
import dev.spanprof.testing.Ports;
import dev.spanprof.testing.TestTraffic;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Continuous pools end to end: the profiling-stats seed's trace (4 cores on worker/w1 for 20 s)
 * with the pool's capacity configured, cut into two 10 s windows that together give exactly the
 * golden per-trace attribution.
 */
@MicronautTest
@Property(name = "test.time", value = "manual")
@Property(name = "test.profiles", value = "recording")
@Property(name = "spanprof.pools.capacity.worker/*", value = "4")
class PoolsControllerTest {

  private static final Map<String, Double> GOLDEN_ATTRIBUTION = Map.of(
      "cpu", 43000000000.0, "idle", 10000000000.0, "wait.mutex", 2716666666.6666665,
      "wait.net", 6383333333.333333, "wait.s3", 14183333333.333334, "wait.ssd", 3716666666.6666665);

  private final HttpClient http = HttpClient.newHttpClient();

  @Inject ApplicationContext context;
  @Inject ManualTimeSource time;
  @Inject PoolService pools;

  @Test
  void pools_afterLateness_twoWindowsSumToTheTraceAttribution() throws Exception {
    TestTraffic.postGolden(context, "seed-profiling-dop");
    TestTraffic.complete(context, TraceId.fromHex("853aeb57d1ff375755dbfeff4c772fa0"));

    // The trace spans [1700000000 s, 1700000020 s): its second window ends at 1700000020 s.
    time.setWallClock(Instant.ofEpochSecond(1_700_000_020 + 30).minusNanos(1));
    assertThat(pools.finalizeDue()).hasSize(1);
    time.setWallClock(Instant.ofEpochSecond(1_700_000_020 + 30));
    assertThat(pools.finalizeDue()).hasSize(1);

    JsonArray body = JsonParser.parseString(http.send(
        HttpRequest.newBuilder(URI.create(Ports.of(context).httpUrl("/api/v1/pools"))).build(),
        HttpResponse.BodyHandlers.ofString()).body()).getAsJsonArray();
    JsonObject pool = body.get(0).getAsJsonObject();
    assertThat(pool.get("pool").getAsString()).isEqualTo("worker/w1");
    JsonArray windows = pool.getAsJsonArray("windows");
    assertThat(windows).hasSize(2);
    assertThat(windows.get(0).getAsJsonObject().get("startNanos").getAsLong())
        .isEqualTo(1_700_000_000_000_000_000L);
    assertThat(windows.get(1).getAsJsonObject().get("capacity").getAsDouble()).isEqualTo(4);
    GOLDEN_ATTRIBUTION.forEach((attributedClass, golden) -> {
      double sum = 0;
      for (int w = 0; w < 2; w++) {
        sum += windows.get(w).getAsJsonObject().getAsJsonObject("attributionNs")
            .get(attributedClass).getAsDouble();
      }
      assertThat(sum).as(attributedClass).isCloseTo(golden, within(1e-9 * golden));
    });
    String scrape = http.send(HttpRequest.newBuilder(
            URI.create(Ports.of(context).managementUrl("/metrics"))).build(),
        HttpResponse.BodyHandlers.ofString()).body();
    assertThat(scrape)
        .contains("spanprof_pool_cpu_seconds_total{class=\"cpu\",pool=\"worker/w1\"} 43.0")
        .contains("spanprof_pool_utilization_ratio{category=\"application\",pool=\"worker/w1\"}");
  }
}
