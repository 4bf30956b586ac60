package dev.spanprof.assembly;

import java.util.Locale;

/** Why a trace stopped collecting spans; the {@code completion} label of spanprof_traces_total. */
public enum Completion {
  /** No span arrived for {@code spanprof.assembly.trace-timeout}. */
  TIMEOUT,
  /** The trace was open for {@code spanprof.assembly.max-trace-age}. */
  MAX_AGE,
  /** Completed early to make room when the buffer was full. */
  EVICTED,
  /** The trace reached {@code spanprof.assembly.max-spans-per-trace}; later spans form a fragment. */
  SPAN_LIMIT,
  /** The service was shutting down. */
  SHUTDOWN;

  private final String label = name().toLowerCase(Locale.ROOT);

  /** The metric label value: {@code timeout}, {@code max_age}, {@code evicted}, … */
  public String label() {
    return label;
  }
}
