/**
 * The analysis core: the span model ({@link dev.spanprof.analysis.SpanRecord}, its resource,
 * scope and attributes), the store that holds spans' encoded bytes, the mapping of spans to
 * resources, pools and states, the per-trace analysis ({@link dev.spanprof.analysis.TraceAnalyzer}:
 * resource time, TTX/TTC, states, self time, critical path, pools), and what spans across traces
 * (the call ranking, pool windows, HdrHistogram distributions).
 *
 * <p>Pure Java plus HdrHistogram. Nothing here may import Micronaut, gRPC or protobuf types
 * ({@code ArchitectureTest} enforces it): protobuf stops at the ingest mapper, so the core can be
 * tested, benchmarked and reasoned about without a framework.
 */
package dev.spanprof.analysis;
