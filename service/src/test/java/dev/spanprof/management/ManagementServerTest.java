package dev.spanprof.management;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.config.AssemblyConfiguration;
import dev.spanprof.config.ExportConfiguration;
import dev.spanprof.config.IngestConfiguration;
import dev.spanprof.testing.Ports;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.env.Environment;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The management listener: contract metric names, formats and health probes. */
@MicronautTest
class ManagementServerTest {

  private final HttpClient http = HttpClient.newHttpClient();

  @Inject ApplicationContext context;

  @Test
  void metrics_prometheusText_hasTheContractMetricsAndJvmMetrics() throws Exception {
    HttpResponse<String> response = get("/metrics", null);

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("content-type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
    assertThat(response.body())
        .contains("# TYPE spanprof_received_spans_total counter")
        .contains("spanprof_received_spans_total{transport=\"grpc\"}")
        .contains("spanprof_received_spans_total{transport=\"http\"}")
        .contains("spanprof_refused_spans_total{reason=\"buffer_full\",transport=\"http\"}")
        .contains("spanprof_refused_spans_total{reason=\"invalid\",transport=\"grpc\"}")
        .contains("# TYPE spanprof_buffered_spans gauge")
        .contains("spanprof_buffered_spans_limit "
            + (double) context.getBean(AssemblyConfiguration.class).getMaxBufferedSpans())
        .contains("spanprof_export_queue_spans_limit "
            + (double) context.getBean(ExportConfiguration.class).getQueueSpans())
        .contains("spanprof_span_store_limit_bytes "
            + (double) context.getBean(IngestConfiguration.class).getSpanStoreSize())
        .contains("# TYPE spanprof_span_store_allocated_bytes gauge")
        .contains("# TYPE spanprof_span_store_in_use_bytes gauge")
        .contains("# TYPE spanprof_span_store_overflow_total counter")
        .contains("# TYPE process_cpu_seconds_total counter")
        .doesNotContain("process_cpu_time_ns_total")
        .doesNotContain("system_cpu_count")
        .doesNotContain("executor_seconds")
        .contains("spanprof_traces_total{completion=\"timeout\"}")
        .contains("spanprof_traces_total{completion=\"max_age\"}")
        .contains("spanprof_traces_total{completion=\"evicted\"}")
        .contains("spanprof_traces_total{completion=\"shutdown\"}")
        .contains("# TYPE spanprof_late_spans_total counter")
        .contains("jvm_memory_used_bytes")
        .contains("jvm_threads_live_threads")
        .contains("jvm_gc_memory_allocated_bytes_total");
  }

  @Test
  void metrics_acceptOpenMetrics_answersOpenMetrics() throws Exception {
    HttpResponse<String> response = get("/metrics", "application/openmetrics-text; version=1.0.0");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("content-type").orElseThrow())
        .startsWith("application/openmetrics-text");
    assertThat(response.body()).contains("spanprof_received_spans_total").endsWith("# EOF\n");
  }

  @Test
  void health_allProbes_upWhileServing() throws Exception {
    for (String path : new String[] {"/health", "/health/liveness", "/health/readiness"}) {
      HttpResponse<String> response = get(path, null);
      assertThat(response.statusCode()).as(path).isEqualTo(200);
      assertThat(response.body()).as(path).isEqualTo("{\"status\":\"UP\"}");
    }
  }

  @Test
  void readiness_beforeTheOtlpServersStart_down() throws Exception {
    // A context whose HTTP server is never started: the management listener runs, OTLP does not.
    try (ApplicationContext notStarted = ApplicationContext.run(Map.of(), Environment.TEST)) {
      String base = "http://localhost:" + notStarted.getBean(ManagementServer.class).port();

      HttpResponse<String> readiness = http.send(
          HttpRequest.newBuilder(URI.create(base + "/health/readiness")).build(),
          HttpResponse.BodyHandlers.ofString());
      HttpResponse<String> liveness = http.send(
          HttpRequest.newBuilder(URI.create(base + "/health/liveness")).build(),
          HttpResponse.BodyHandlers.ofString());

      assertThat(readiness.statusCode()).isEqualTo(503);
      assertThat(liveness.statusCode()).isEqualTo(200);
    }
  }

  @Test
  void unknownPath_404NamesTheKnownOnes() throws Exception {
    HttpResponse<String> response = get("/prometheus", null);

    assertThat(response.statusCode()).isEqualTo(404);
    assertThat(response.body()).contains("/metrics", "/health/readiness");
  }

  @Test
  void post_405() throws Exception {
    HttpResponse<String> response = http.send(
        HttpRequest.newBuilder(URI.create(Ports.of(context).managementUrl("/metrics")))
            .POST(HttpRequest.BodyPublishers.noBody()).build(),
        HttpResponse.BodyHandlers.ofString());

    assertThat(response.statusCode()).isEqualTo(405);
    assertThat(response.headers().firstValue("Allow")).hasValue("GET, HEAD");
  }

  private HttpResponse<String> get(String path, String accept) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(Ports.of(context).managementUrl(path)));
    if (accept != null) {
      request.header("Accept", accept);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
