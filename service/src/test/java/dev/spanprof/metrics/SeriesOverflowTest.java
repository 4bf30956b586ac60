package dev.spanprof.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.span.TraceId;
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
import org.junit.jupiter.api.Test;

/** Beyond spanprof.metrics.max-series, new label sets fold into one overflow series per kind. */
@MicronautTest
@Property(name = "test.time", value = "manual")
@Property(name = "test.profiles", value = "recording")
@Property(name = "spanprof.metrics.max-series", value = "4")
class SeriesOverflowTest {

  @Inject ApplicationContext context;

  @Test
  void metrics_pastTheSeriesLimit_overflowSeriesAndCounter() throws Exception {
    TestTraffic.postGolden(context, "fanout-self-time");
    TestTraffic.complete(context, TraceId.fromHex("42a78925f1ecee2d8aecc9722a15fd9b"));

    String scrape = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create(Ports.of(context).managementUrl("/metrics"))).build(),
        HttpResponse.BodyHandlers.ofString()).body();

    assertThat(scrape)
        .contains("otel_metric_overflow=\"true\"")
        .containsPattern("spanprof_series_overflow_total\\{metric=\"spanprof_[a-z_]+_seconds\"} [1-9]");
    long series = scrape.lines()
        .filter(line -> line.matches("spanprof_(duration|self_time|critical_path|trace_ttx|trace_ttc)_seconds_count\\{.*"))
        .count();
    // The first 4 label sets, then at most one overflow series for each of the 5 kinds.
    assertThat(series).isGreaterThan(4).isLessThanOrEqualTo(4 + 5);
  }
}
