/**
 * The service's one time abstraction ({@link dev.spanprof.time.TimeSource}): the monotonic
 * clock, the wall clock and waiting, replaced by a manual one in tests.
 */
package dev.spanprof.time;
