package dev.spanprof.analysis;

import java.util.Objects;

/**
 * The OTLP resource a span came with: shared by every span of one {@code ResourceSpans} block, so
 * a request's resource attributes are held once, not once per span.
 *
 * @param serviceName the resource's {@code service.name}, or {@code unknown_service} when absent
 *     (semantics.md §1)
 * @param attributes the resource attributes
 * @param schemaUrl the block's schema URL ("" when absent)
 * @param encoded the original encoded {@code Resource} message, kept so forwarding can re-emit the
 *     request's resource grouping exactly; opaque to the analysis
 */
public record SpanResource(
    String serviceName, Attributes attributes, String schemaUrl, byte[] encoded) {

  /** The service name used when a resource has none (semantics.md §1). */
  public static final String UNKNOWN_SERVICE = "unknown_service";

  public SpanResource {
    Objects.requireNonNull(serviceName, "serviceName");
    Objects.requireNonNull(attributes, "attributes");
    Objects.requireNonNull(schemaUrl, "schemaUrl");
    Objects.requireNonNull(encoded, "encoded");
  }
}
