/**
 * Trace assembly: buffers spans by trace id until their trace completes, then hands the trace to
 * the analysis stage on a bounded worker pool.
 *
 * <p>Pure Java like the analysis core (no framework, gRPC or protobuf types): the clock is a
 * {@link dev.spanprof.time.TimeSource} passed in, metrics go through
 * {@link dev.spanprof.assembly.AssemblyListener}, and the Micronaut wiring lives in
 * {@code dev.spanprof.wiring}.
 */
package dev.spanprof.assembly;
