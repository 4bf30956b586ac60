package dev.spanprof.management;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.span.TraceId;
import dev.spanprof.testing.Ports;
import dev.spanprof.testing.TestTraffic;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * /metrics, with distributions and exemplars in it, is read by an independent parser: the
 * Prometheus Python client's text-format and OpenMetrics parsers (Debian's
 * python3-prometheus-client, installed by scripts/install-test-tools.sh).
 */
@MicronautTest
@Property(name = "test.time", value = "manual")
@Property(name = "test.profiles", value = "recording")
@Property(name = "spanprof.histogram.expected-interval.gateway/db", value = "10ms")
class MetricsExpositionTest {

  private static final String PARSE = """
      import sys
      from prometheus_client.parser import text_string_to_metric_families as text
      from prometheus_client.openmetrics.parser import text_string_to_metric_families as openmetrics
      parse = openmetrics if sys.argv[1] == "openmetrics" else text
      families = {f.name: f for f in parse(sys.stdin.read())}
      duration = families["spanprof_duration_seconds"]
      exemplars = sum(1 for s in duration.samples if s.exemplar is not None)
      window = families["spanprof_duration_quantile_seconds"]
      quantiles = sorted({s.labels["quantile"] for s in window.samples if "quantile" in s.labels})
      counts = sum(1 for s in window.samples if s.name.endswith("_count"))
      print(len(families), len(duration.samples), exemplars, window.type, ",".join(quantiles),
            counts)
      """;

  private final HttpClient http = HttpClient.newHttpClient();

  @Inject ApplicationContext context;

  @BeforeEach
  void analyseATrace() throws Exception {
    TestTraffic.postGolden(context, "fanout-self-time");
    TestTraffic.complete(context, TraceId.fromHex("42a78925f1ecee2d8aecc9722a15fd9b"));
  }

  @Test
  void prometheusText_parsesWithTheReferenceParser() throws Exception {
    String[] parsed = parse(scrape(null), "text");

    assertThat(Integer.parseInt(parsed[0])).isGreaterThan(20);
    // 7 spans, 6 operations by kind and status, 17 buckets + sum + count each; one corrected.
    assertThat(Integer.parseInt(parsed[1])).isGreaterThanOrEqualTo(7 * 19);
    assertThat(parsed[3]).as("the window quantiles' family").isEqualTo("summary");
    assertThat(parsed[4].split(",")).containsExactly("0.5", "0.9", "0.99", "0.999", "1.0");
    assertThat(Integer.parseInt(parsed[5])).as("a count per duration series").isPositive();
  }

  @Test
  void openMetrics_parsesWithTheReferenceParserAndCarriesExemplars() throws Exception {
    String body = scrape("application/openmetrics-text; version=1.0.0");

    String[] parsed = parse(body, "openmetrics");

    assertThat(Integer.parseInt(parsed[2])).isGreaterThanOrEqualTo(7);
    assertThat(body).contains("trace_id=\"42a78925f1ecee2d8aecc9722a15fd9b\"")
        .contains("spanprof_duration_seconds_bucket{correction=\"corrected\"");
  }

  private String scrape(String accept) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(Ports.of(context).managementUrl("/metrics")));
    if (accept != null) {
      request.header("Accept", accept);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString()).body();
  }

  /** Runs the reference parser; fails with its error output when it rejects the document. */
  private static String[] parse(String exposition, String format) throws Exception {
    Process python = new ProcessBuilder("/usr/bin/python3", "-c", PARSE.stripIndent(), format)
        .redirectErrorStream(true)
        .start();
    try (OutputStream in = python.getOutputStream()) {
      in.write(exposition.getBytes(StandardCharsets.UTF_8));
    }
    String output = new String(python.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(python.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(python.exitValue()).as(output).isZero();
    return output.trim().split(" ");
  }
}
