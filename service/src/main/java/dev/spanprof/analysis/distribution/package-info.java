/**
 * HdrHistogram distributions, semantics.md §5: each series' cumulative and sliding-window views
 * ({@link dev.spanprof.analysis.distribution.Distribution}), and the bounded registry of series
 * by label set ({@link dev.spanprof.analysis.distribution.DistributionRegistry}).
 */
package dev.spanprof.analysis.distribution;
