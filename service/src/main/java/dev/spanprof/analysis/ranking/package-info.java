/**
 * The call ranking across traces, semantics.md §4: a sliding window of caller–callee edges and
 * the ranks computed from it ({@link dev.spanprof.analysis.ranking.CallRanking}).
 */
package dev.spanprof.analysis.ranking;
