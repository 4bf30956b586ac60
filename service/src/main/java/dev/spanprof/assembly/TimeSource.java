package dev.spanprof.assembly;

/**
 * A monotonic clock in nanoseconds, passed in so tests drive time instead of sleeping.
 *
 * <p>Only differences between readings mean anything, as with {@link System#nanoTime()}.
 */
@FunctionalInterface
public interface TimeSource {

  long nanoTime();

  static TimeSource system() {
    return System::nanoTime;
  }
}
