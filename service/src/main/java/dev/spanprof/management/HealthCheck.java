package dev.spanprof.management;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.time.Duration;

/**
 * The container image's health check: exits 0 when the management listener answers 200, else 1.
 * The JRE base image has no curl or wget, and a check in Java needs nothing beyond the service's
 * own jar.
 *
 * <p>Usage: {@code java -cp spanprof.jar dev.spanprof.management.HealthCheck [url]}, the URL
 * defaulting to {@value #DEFAULT_URL}.
 */
public final class HealthCheck {

  static final String DEFAULT_URL = "http://127.0.0.1:9464/health/readiness";
  private static final Duration TIMEOUT = Duration.ofSeconds(3);

  private HealthCheck() {}

  public static void main(String[] args) {
    System.exit(healthy(URI.create(args.length > 0 ? args[0] : DEFAULT_URL)) ? 0 : 1);
  }

  /** True when a GET of {@code url} answers 200 within the timeout. */
  static boolean healthy(URI url) {
    try {
      HttpURLConnection connection = (HttpURLConnection) url.toURL().openConnection();
      connection.setConnectTimeout((int) TIMEOUT.toMillis());
      connection.setReadTimeout((int) TIMEOUT.toMillis());
      try {
        return connection.getResponseCode() == HttpURLConnection.HTTP_OK;
      } finally {
        connection.disconnect();
      }
    } catch (IOException e) {
      return false;
    }
  }
}
