package dev.spanprof.analysis;

/**
 * What one {@link SpanMapping} makes of a span (semantics.md §1): its resource id, pool id, state,
 * category, cores and capacity, as the mapping's single-span derivations give them.
 *
 * <p>Worked out at ingest, while the span's bytes are in the cache, by the {@link
 * SpanMapping.Mapper} its builder was given; the analysis, seconds later, reads this instead of
 * decoding the span's attributes from memory (BENCHMARKS.md, forty-seventh stop). The spans of a
 * request with the same outcome mostly share one instance (the mapper keeps its recent ones), so
 * a buffered span pays little more than a reference for it.
 */
final class MappedSpan {

  private final SpanMapping mapping;
  private final String resourceId;
  private final String poolId;
  private final String state;
  private final String category;
  /** {@code spanprof.cores} as given: NaN when not a number; the analysis defaults it. */
  private final double cores;
  /** {@code spanprof.pool.capacity}: NaN when absent or not a number. */
  private final double capacity;
  /** Whether one of the span's own keys starts with {@code spanprof.}. */
  private final boolean namesSpanprofKeys;

  MappedSpan(SpanMapping mapping, String resourceId, String poolId, String state,
      String category, double cores, double capacity, boolean namesSpanprofKeys) {
    this.mapping = mapping;
    this.resourceId = resourceId;
    this.poolId = poolId;
    this.state = state;
    this.category = category;
    this.cores = cores;
    this.capacity = capacity;
    this.namesSpanprofKeys = namesSpanprofKeys;
  }

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

  /** The mapping this came from: only its own analysis may use it. */
  SpanMapping mapping() {
    return mapping;
  }

  String resourceId() {
    return resourceId;
  }

  String poolId() {
    return poolId;
  }

  String state() {
    return state;
  }

  String category() {
    return category;
  }

  double cores() {
    return cores;
  }

  double capacity() {
    return capacity;
  }

  boolean namesSpanprofKeys() {
    return namesSpanprofKeys;
  }
}
