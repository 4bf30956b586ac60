package dev.spanprof.analysis.pool;

import dev.spanprof.span.StateClass;

/**
 * Over [fromNanos, toNanos) a resource of {@code pool} ran a span in this state: a resource's
 * chosen span (semantics.md §2), as the pools' sweeps take it (§3).
 */
public record ChosenSegment(
    String pool,
    String state,
    StateClass stateClass,
    String category,
    double cores,
    long fromNanos,
    long toNanos) {}
