package dev.spanprof.config;

import io.micronaut.context.annotation.ConfigurationProperties;

/** {@code spanprof.ui.*}: the web UI (contract.md, "Web UI"). */
@ConfigurationProperties(UiConfiguration.PREFIX)
public final class UiConfiguration {

  public static final String PREFIX = "spanprof.ui";

  private String traceLink = "";

  /**
   * A URL naming a trace in the tracing backend that receives the forwarded spans, with {@code
   * {traceId}} where the id goes (e.g. {@code https://jaeger.example/trace/{traceId}}); empty:
   * no such link.
   */
  public String getTraceLink() {
    return traceLink;
  }

  public void setTraceLink(String traceLink) {
    String link = traceLink == null ? "" : traceLink.trim();
    if (!link.isEmpty() && (!link.matches("https?://[^\\s\"<>]+") || !link.contains("{traceId}"))) {
      throw new IllegalArgumentException(PREFIX + ".trace-link must be an http(s) URL with "
          + "{traceId} where the trace id goes, was '" + traceLink + "'");
    }
    this.traceLink = link;
  }
}
