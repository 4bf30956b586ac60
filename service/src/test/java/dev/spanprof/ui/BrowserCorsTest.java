package dev.spanprof.ui;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.spanprof.testing.Ports;
import io.micronaut.context.ApplicationContext;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * CORS as a browser enforces it: a page of the allowed origin POSTs OTLP/JSON to spanprof with
 * {@code fetch} (a preflight first, for its JSON content type) and gets spanprof's answer; the
 * same page from another origin is blocked by the browser.
 */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BrowserCorsTest implements TestPropertyProvider {

  @TempDir static Path browserProfile;
  private HttpServer allowed;
  private HttpServer other;
  private ChromeDriver browser;
  @Inject ApplicationContext context;

  @Override
  public Map<String, String> getProperties() {
    try {
      allowed = pageServer();
      other = pageServer();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Map.of("spanprof.ingest.cors.allowed-origins", origin(allowed));
  }

  @AfterAll
  void stop() {
    if (browser != null) {
      browser.quit();
    }
    allowed.stop(0);
    other.stop(0);
  }

  @Test
  void fetchFromAPage_allowedOriginGetsTheAnswerOtherIsBlocked() throws Exception {
    browser = Chromium.start(800, 600, browserProfile);

    assertThat(fetchFrom(allowed)).isEqualTo("status 200");
    assertThat(fetchFrom(other)).startsWith("blocked");
  }

  /** Opens the page of {@code server} and returns what its fetch to spanprof ended with. */
  private String fetchFrom(HttpServer server) {
    String target = Ports.of(context).httpUrl("/v1/traces");
    browser.get(origin(server) + "/page?target=" + target);
    new WebDriverWait(browser, Duration.ofSeconds(30))
        .until(driver -> !driver.getTitle().equals("waiting"));
    return browser.getTitle();
  }

  private static String origin(HttpServer server) {
    return "http://localhost:" + server.getAddress().getPort();
  }

  /** A server of one page whose script POSTs an empty OTLP/JSON request to ?target. */
  private static HttpServer pageServer() throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("localhost", 0), 0);
    byte[] page = ("<!doctype html><title>waiting</title><script>"
        + "const target = new URLSearchParams(location.search).get('target');"
        + "fetch(target, {method: 'POST', headers: {'Content-Type': 'application/json'},"
        + " body: '{\"resourceSpans\": []}'})"
        + ".then(r => document.title = 'status ' + r.status)"
        + ".catch(e => document.title = 'blocked: ' + e.message);"
        + "</script>").getBytes(StandardCharsets.UTF_8);
    server.createContext("/page", exchange -> {
      exchange.getResponseHeaders().set("Content-Type", "text/html");
      exchange.sendResponseHeaders(200, page.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(page);
      }
    });
    server.start();
    return server;
  }
}
