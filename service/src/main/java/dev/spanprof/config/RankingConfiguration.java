package dev.spanprof.config;

import io.micronaut.context.annotation.ConfigurationProperties;
import java.time.Duration;

/** {@code spanprof.ranking.*}: the call ranking across traces (semantics.md §4). */
@ConfigurationProperties(RankingConfiguration.PREFIX)
public final class RankingConfiguration {

  public static final String PREFIX = "spanprof.ranking";
  public static final Duration DEFAULT_WINDOW = Duration.ofMinutes(5);
  public static final double DEFAULT_EPSILON = 1e-6;
  public static final Duration DEFAULT_REFRESH = Duration.ofSeconds(10);
  public static final int DEFAULT_MAX_OPERATIONS = 5000;
  public static final int DEFAULT_EXPORT_TOP = 50;

  private Duration window = DEFAULT_WINDOW;
  private double epsilon = DEFAULT_EPSILON;
  private Duration refresh = DEFAULT_REFRESH;
  private int maxOperations = DEFAULT_MAX_OPERATIONS;
  private int exportTop = DEFAULT_EXPORT_TOP;

  /** The sliding window of analysed traces the ranking covers. */
  public Duration getWindow() {
    return window;
  }

  public void setWindow(Duration window) {
    this.window = window;
  }

  public double getEpsilon() {
    return epsilon;
  }

  public void setEpsilon(double epsilon) {
    this.epsilon = epsilon;
  }

  /** How often the ranking is recomputed (off the ingest path). */
  public Duration getRefresh() {
    return refresh;
  }

  public void setRefresh(Duration refresh) {
    this.refresh = refresh;
  }

  public int getMaxOperations() {
    return maxOperations;
  }

  public void setMaxOperations(int maxOperations) {
    this.maxOperations = maxOperations;
  }

  /** How many top operations spanprof_involvement_ratio exports. */
  public int getExportTop() {
    return exportTop;
  }

  public void setExportTop(int exportTop) {
    this.exportTop = exportTop;
  }
}
