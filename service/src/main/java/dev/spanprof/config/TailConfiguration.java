package dev.spanprof.config;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.annotation.Nullable;
import java.time.Duration;

/** {@code spanprof.tail.*}: why slow traces are slow (semantics.md §6). */
@ConfigurationProperties(TailConfiguration.PREFIX)
public final class TailConfiguration {

  public static final String PREFIX = "spanprof.tail";
  public static final int DEFAULT_MAX_ROOTS = 100;
  public static final int DEFAULT_MAX_OPERATIONS = 50;

  private Duration window;
  private int maxRoots = DEFAULT_MAX_ROOTS;
  private int maxOperations = DEFAULT_MAX_OPERATIONS;

  /** The sliding window of analysed traces; null: the ranking's ({@code spanprof.ranking.window}). */
  @Nullable
  public Duration getWindow() {
    return window;
  }

  public void setWindow(@Nullable Duration window) {
    this.window = window;
  }

  /** Root operations kept; a trace of a further root is counted as overflow and left out. */
  public int getMaxRoots() {
    return maxRoots;
  }

  public void setMaxRoots(int maxRoots) {
    this.maxRoots = maxRoots;
  }

  /** Per root, operations and (separately) states kept; further ones are summed as _overflow. */
  public int getMaxOperations() {
    return maxOperations;
  }

  public void setMaxOperations(int maxOperations) {
    this.maxOperations = maxOperations;
  }
}
