/**
 * Micrometer bindings: one small class per concern that turns a core listener into meters.
 *
 * <p>Names follow Micrometer's dotted convention; the Prometheus registry renders them with
 * {@code _total} and unit suffixes, giving exactly the names of docs/contract.md.
 */
package dev.spanprof.metrics;
