/**
 * The span model every stage shares: ingest builds it, assembly holds it, the analysis reads it
 * and export enriches from it. A {@link dev.spanprof.span.SpanRecord} with its resource, scope,
 * attributes and ids, and its mapping to resources, pools, states and categories ({@link
 * dev.spanprof.span.SpanMapping}, semantics.md §1).
 *
 * <p>Like the analysis core: pure Java, no Micronaut, gRPC or protobuf type ({@code
 * ArchitectureTest} enforces it), so it can be tested, benchmarked and reasoned about without a
 * framework.
 */
package dev.spanprof.span;
