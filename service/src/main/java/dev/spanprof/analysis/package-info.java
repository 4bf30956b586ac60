/**
 * The analysis core: internal span records and, in later steps, interval algebra, critical path,
 * ranking and distributions.
 *
 * <p>Pure Java plus HdrHistogram. Nothing here may import Micronaut, gRPC or protobuf types
 * ({@code ArchitectureTest} enforces it): protobuf stops at the ingest mapper, so the core can be
 * tested, benchmarked and reasoned about without a framework.
 */
package dev.spanprof.analysis;
