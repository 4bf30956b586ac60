/**
 * The wiring: the factory that turns configuration into the pipeline's core objects, and the
 * lifecycle that sweeps the buffer while spanprof runs and drains the pipeline at shutdown. Kept
 * apart from {@code config}, which every package reads, so that no package depends back on
 * another ({@code ArchitectureTest}).
 */
package dev.spanprof.wiring;
