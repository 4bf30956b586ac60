package dev.spanprof.analysis.tail;

import dev.spanprof.span.Operation;

/**
 * A root operation with traces in the tail window: how many, and the quantiles of their
 * primary-root durations, each the lower bound of its 5 % bucket.
 */
public record TailRoot(Operation root, long traces, long p50Ns, long p90Ns, long p99Ns) {}
