/**
 * The per-trace analysis, semantics.md §2–3: {@link dev.spanprof.analysis.trace.TraceAnalyzer}
 * runs one package-private class per phase (mapping, span tree, resource timeline, state times,
 * self times, critical path, pool usages, totals) and gives a
 * {@link dev.spanprof.analysis.trace.TraceProfile}.
 */
package dev.spanprof.analysis.trace;
