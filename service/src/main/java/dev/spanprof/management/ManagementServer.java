package dev.spanprof.management;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.spanprof.config.ManagementConfiguration;
import dev.spanprof.ingest.IngestGate;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.event.ApplicationEventListener;
import io.micronaut.runtime.server.event.ServerStartupEvent;
import jakarta.annotation.PreDestroy;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;

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
 * {@code Accept} header asks for {@code application/openmetrics-text} (needed for exemplars).
 */
@Context
public final class ManagementServer implements ApplicationEventListener<ServerStartupEvent> {

  private static final String OPENMETRICS = "application/openmetrics-text";
  private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

  private final HttpServer server;
  private final ExecutorService executor;
  private final PrometheusMeterRegistry registry;
  private final IngestGate gate;
  private volatile boolean started;

  ManagementServer(
      ManagementConfiguration configuration, PrometheusMeterRegistry registry, IngestGate gate)
      throws IOException {
    this.registry = registry;
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
    if (accept != null && accept.contains(OPENMETRICS)) {
      String contentType = OPENMETRICS + "; version=1.0.0; charset=utf-8";
      respond(exchange, 200, contentType, registry.scrape(contentType));
    } else {
      respond(exchange, 200, PROMETHEUS_TEXT, registry.scrape(PROMETHEUS_TEXT));
    }
  }

  private static void health(HttpExchange exchange, boolean up) throws IOException {
    respond(exchange, up ? 200 : 503, "application/json",
        up ? "{\"status\":\"UP\"}" : "{\"status\":\"DOWN\"}");
  }

  private static void respond(HttpExchange exchange, int status, String contentType, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
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
