package dev.spanprof.config;

import io.micronaut.context.annotation.ConfigurationProperties;
import java.time.Duration;
import java.util.List;

/**
 * {@code spanprof.ingest.cors.*}: which web pages may POST spans to OTLP/HTTP from a browser
 * ({@code @opentelemetry/exporter-trace-otlp-http}). Nothing is allowed by default.
 */
@ConfigurationProperties(CorsConfiguration.PREFIX)
public final class CorsConfiguration {

  public static final String PREFIX = "spanprof.ingest.cors";

  private List<String> allowedOrigins = List.of();
  private List<String> allowedHeaders = List.of();
  private Duration maxAge = Duration.ofHours(2);

  /** Origins ({@code https://app.example.com}) allowed to send spans; {@code *} for any. */
  public List<String> getAllowedOrigins() {
    return allowedOrigins;
  }

  public void setAllowedOrigins(List<String> allowedOrigins) {
    this.allowedOrigins = List.copyOf(allowedOrigins);
  }

  /**
   * Request headers a page may send besides {@code Content-Type}, {@code Content-Encoding} and
   * {@code Authorization}, which are always allowed.
   */
  public List<String> getAllowedHeaders() {
    return allowedHeaders;
  }

  public void setAllowedHeaders(List<String> allowedHeaders) {
    this.allowedHeaders = List.copyOf(allowedHeaders);
  }

  /** How long a browser may keep a preflight's answer. */
  public Duration getMaxAge() {
    return maxAge;
  }

  public void setMaxAge(Duration maxAge) {
    this.maxAge = maxAge;
  }
}
