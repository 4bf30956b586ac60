package dev.spanprof.span;

import java.util.Objects;

/**
 * The instrumentation scope a span came with, shared by every span of one {@code ScopeSpans}
 * block.
 *
 * @param name the scope name ("" when absent)
 * @param version the scope version ("" when absent)
 * @param attributes the scope attributes
 * @param schemaUrl the block's schema URL ("" when absent)
 * @param encoded the original encoded {@code InstrumentationScope} message, opaque to the analysis
 */
public record SpanScope(
    String name, String version, Attributes attributes, String schemaUrl, byte[] encoded) {

  public SpanScope {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(attributes, "attributes");
    Objects.requireNonNull(schemaUrl, "schemaUrl");
    Objects.requireNonNull(encoded, "encoded");
  }
}
