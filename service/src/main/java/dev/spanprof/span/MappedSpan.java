package dev.spanprof.span;

/**
 * What one {@link SpanMapping} makes of a span (semantics.md §1): its resource id, pool id, state,
 * category, cores and capacity, as the mapping's single-span derivations give them.
 *
 * <p>Worked out at ingest, while the span's bytes are in the cache, by the {@link
 * SpanMapping.Mapper} its builder was given; the analysis, seconds later, reads this instead of
 * decoding the span's attributes from memory ({@code PipelineBenchmark}). The spans of a
 * request with the same outcome mostly share one instance (the mapper keeps its recent ones), so
 * a buffered span pays little more than a reference for it.
 *
 * @param mapping the mapping this came from: only its own analysis may use it
 * @param cores {@code spanprof.cores} as given: NaN when not a number; the analysis defaults it
 * @param capacity {@code spanprof.pool.capacity}: NaN when absent or not a number
 * @param namesSpanprofKeys whether one of the span's own keys starts with {@code spanprof.}
 */
public record MappedSpan(
    SpanMapping mapping,
    String resourceId,
    String poolId,
    String state,
    String category,
    double cores,
    double capacity,
    boolean namesSpanprofKeys) {

  /** Whether this says the same as the arguments (strings by value, numbers bit for bit). */
  boolean sameAs(SpanMapping mapping, String resourceId, String poolId, String state,
      String category, double cores, double capacity, boolean namesSpanprofKeys) {
    return this.mapping == mapping
        && this.resourceId.equals(resourceId)
        && this.poolId.equals(poolId)
        && this.state.equals(state)
        && this.category.equals(category)
        && Double.doubleToLongBits(this.cores) == Double.doubleToLongBits(cores)
        && Double.doubleToLongBits(this.capacity) == Double.doubleToLongBits(capacity)
        && this.namesSpanprofKeys == namesSpanprofKeys;
  }
}
