package dev.spanprof.span;

import java.util.Objects;

/**
 * The OTLP resource a span came with: shared by every span of one {@code ResourceSpans} block, so
 * a request's resource attributes are held once, not once per span.
 */
public final class SpanResource {

  /** The service name used when a resource has none (semantics.md §1). */
  public static final String UNKNOWN_SERVICE = "unknown_service";

  private final String serviceName;
  private final Attributes attributes;
  private final String schemaUrl;
  private final byte[] encoded;
  /**
   * What a mapping derives from these attributes alone, remembered for the next trace: a
   * request's traces share its resource and are analysed one by one. Races only compute the same
   * value twice.
   */
  private volatile SpanMapping.ResourceMapping mapping;

  /**
   * @param serviceName the resource's {@code service.name}, or {@code unknown_service} when absent
   *     (semantics.md §1)
   * @param attributes the resource attributes
   * @param schemaUrl the block's schema URL ("" when absent)
   * @param encoded the original encoded {@code Resource} message, kept so forwarding can re-emit
   *     the request's resource grouping exactly; opaque to the analysis
   */
  public SpanResource(String serviceName, Attributes attributes, String schemaUrl, byte[] encoded) {
    this.serviceName = Objects.requireNonNull(serviceName, "serviceName");
    this.attributes = Objects.requireNonNull(attributes, "attributes");
    this.schemaUrl = Objects.requireNonNull(schemaUrl, "schemaUrl");
    this.encoded = Objects.requireNonNull(encoded, "encoded");
  }

  public String serviceName() {
    return serviceName;
  }

  public Attributes attributes() {
    return attributes;
  }

  public String schemaUrl() {
    return schemaUrl;
  }

  public byte[] encoded() {
    return encoded;
  }

  SpanMapping.ResourceMapping mapping() {
    return mapping;
  }

  void mapping(SpanMapping.ResourceMapping known) {
    mapping = known;
  }

  @Override
  public String toString() {
    return "SpanResource[serviceName=" + serviceName + ", attributes=" + attributes
        + ", schemaUrl=" + schemaUrl + "]";
  }
}
