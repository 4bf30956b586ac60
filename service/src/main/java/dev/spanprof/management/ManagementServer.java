package dev.spanprof.management;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.spanprof.config.ManagementConfiguration;
import dev.spanprof.ingest.IngestGate;
import dev.spanprof.metrics.DistributionExport;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.event.ApplicationEventListener;
import io.micronaut.runtime.server.event.ServerStartupEvent;
import io.prometheus.metrics.expositionformats.OpenMetricsTextFormatWriter;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import jakarta.annotation.PreDestroy;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Serves {@code GET /metrics}, {@code /health}, {@code /health/liveness} and
 * {@code /health/readiness} on the management port (default 9464).
 *
 * <p>A listener of its own rather than Micronaut's management endpoints, for two reasons: the
 * paths are exactly those Prometheus and Kubernetes expect (Micronaut serves Prometheus at
 * {@code /prometheus} and its {@code /metrics} is JSON), and its lifecycle is ours — it keeps
 * answering, with readiness DOWN, while the pipeline drains at shutdown, after the OTLP servers
 * have stopped taking spans.
 *
 * <p>Readiness is UP from the moment the OTLP servers have started until the ingest gate closes
 * at shutdown; liveness is UP while this listener answers.
 *
 * <p>{@code /metrics} speaks the Prometheus text format, or OpenMetrics when the scraper's
 * {@code Accept} header asks for {@code application/openmetrics-text} (needed for exemplars). It
 * serves Micrometer's meters and the HdrHistogram distributions ({@link DistributionExport}).
 * OpenMetrics names a counter's family without {@code _total}, so the contract's counters
 * {@code spanprof_self_time_seconds_total} and {@code spanprof_critical_path_seconds_total}
 * would share a family name with the histograms of the same names; in OpenMetrics they are left
 * out (the histograms' {@code _sum} carries the same totals). The Prometheus text format keeps
 * both.
 */
@Context
public final class ManagementServer implements ApplicationEventListener<ServerStartupEvent> {

  private static final String OPENMETRICS = "application/openmetrics-text";
  private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

  private final HttpServer server;
  private final ExecutorService executor;
  private final PrometheusMeterRegistry registry;
  private final DistributionExport distributions;
  private final IngestGate gate;
  private volatile boolean started;

  ManagementServer(
      ManagementConfiguration configuration,
      PrometheusMeterRegistry registry,
      DistributionExport distributions,
      IngestGate gate) throws IOException {
    this.registry = registry;
    this.distributions = distributions;
    this.gate = gate;
    this.server = HttpServer.create(
        new InetSocketAddress(configuration.getHost(), configuration.getPort()), 0);
    this.executor = Executors.newSingleThreadExecutor(task -> {
      Thread thread = new Thread(task, "spanprof-management");
      thread.setDaemon(true);
      return thread;
    });
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  /** The bound port: the configured one, or the one picked when configured as 0. */
  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void onApplicationEvent(ServerStartupEvent event) {
    started = true;
  }

  @PreDestroy
  void stop() {
    server.stop(0);
    executor.shutdownNow();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!"GET".equals(exchange.getRequestMethod()) && !"HEAD".equals(exchange.getRequestMethod())) {
        exchange.getResponseHeaders().set("Allow", "GET, HEAD");
        respond(exchange, 405, "text/plain; charset=utf-8", "use GET\n");
        return;
      }
      switch (exchange.getRequestURI().getPath()) {
        case "/metrics" -> metrics(exchange);
        case "/health", "/health/readiness" -> health(exchange, started && gate.isOpen());
        case "/health/liveness" -> health(exchange, true);
        default -> respond(exchange, 404, "text/plain; charset=utf-8",
            "not found; try /metrics, /health, /health/liveness or /health/readiness\n");
      }
    }
  }

  private void metrics(HttpExchange exchange) throws IOException {
    String accept = exchange.getRequestHeaders().getFirst("Accept");
    MetricSnapshots meters = registry.getPrometheusRegistry().scrape();
    MetricSnapshots histograms = distributions.collect();
    ByteArrayOutputStream body = new ByteArrayOutputStream(64 * 1024);
    String contentType;
    if (accept != null && accept.contains(OPENMETRICS)) {
      List<MetricSnapshot> families = new ArrayList<>();
      for (MetricSnapshot family : meters) {
        if (!DistributionExport.OPEN_METRICS_CONFLICTS.contains(family.getMetadata().getName())) {
          families.add(family);
        }
      }
      histograms.forEach(families::add);
      new OpenMetricsTextFormatWriter(false, false).write(body, new MetricSnapshots(families));
      contentType = OpenMetricsTextFormatWriter.CONTENT_TYPE;
    } else {
      PrometheusTextFormatWriter writer = new PrometheusTextFormatWriter(false);
      writer.write(body, meters);
      writer.write(body, histograms);
      contentType = PROMETHEUS_TEXT;
    }
    respond(exchange, 200, contentType, body.toByteArray());
  }

  private static void health(HttpExchange exchange, boolean up) throws IOException {
    respond(exchange, up ? 200 : 503, "application/json",
        up ? "{\"status\":\"UP\"}" : "{\"status\":\"DOWN\"}");
  }

  private static void respond(HttpExchange exchange, int status, String contentType, String body)
      throws IOException {
    respond(exchange, status, contentType, body.getBytes(StandardCharsets.UTF_8));
  }

  private static void respond(HttpExchange exchange, int status, String contentType, byte[] bytes)
      throws IOException {
    exchange.getResponseHeaders().set("Content-Type", contentType);
    boolean head = "HEAD".equals(exchange.getRequestMethod());
    exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
    if (!head) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }
}
