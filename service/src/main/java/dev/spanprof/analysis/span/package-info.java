/**
 * The span model ({@link dev.spanprof.analysis.span.SpanRecord}, its resource, scope,
 * attributes and ids) and its mapping to resources, pools, states and categories
 * ({@link dev.spanprof.analysis.span.SpanMapping}, semantics.md §1).
 *
 * <p>Like every package of the analysis core: pure Java plus HdrHistogram, no Micronaut, gRPC or
 * protobuf type ({@code ArchitectureTest} enforces it), so the core can be tested, benchmarked
 * and reasoned about without a framework.
 */
package dev.spanprof.analysis.span;
