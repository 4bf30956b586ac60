/**
 * Why slow traces are slow, semantics.md §6: per root operation, over a sliding window, the
 * critical path of its traces split by operation and by state, for the slow traces and for all
 * ({@link dev.spanprof.analysis.tail.TailWindow}).
 */
package dev.spanprof.analysis.tail;
