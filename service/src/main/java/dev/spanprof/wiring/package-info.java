/**
 * The wiring: the factory that turns configuration into the pipeline's core objects, the lifecycle
 * that sweeps the buffer while spanprof runs and drains the pipeline at shutdown, and the log of
 * the memory bounds in force. Kept apart from {@code config}, which every package reads, so that no
 * package depends back on another ({@code ArchitectureTest}).
 */
package dev.spanprof.wiring;
