package dev.spanprof.config;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.convert.format.MapFormat;
import io.micronaut.core.naming.conventions.StringConvention;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code spanprof.pools.*}: pools analysed continuously across traces. A pool is analysed when
 * {@code capacity} names it (its id, or a glob with {@code *} and {@code ?}):
 *
 * <pre>
 * spanprof.pools:
 *   capacity:
 *     "checkout/c1": 8        # 8 cores
 *     "worker/*": 4
 * </pre>
 */
@ConfigurationProperties(PoolsConfiguration.PREFIX)
public final class PoolsConfiguration {

  public static final String PREFIX = "spanprof.pools";
  public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(10);
  public static final Duration DEFAULT_LATENESS = Duration.ofSeconds(30);
  public static final int DEFAULT_MAX_POOLS = 1000;
  public static final int DEFAULT_RECENT_WINDOWS = 60;

  private Map<String, Double> capacity = new LinkedHashMap<>();
  private Duration window = DEFAULT_WINDOW;
  private Duration lateness = DEFAULT_LATENESS;
  private int maxPools = DEFAULT_MAX_POOLS;
  private int recentWindows = DEFAULT_RECENT_WINDOWS;

  public Map<String, Double> getCapacity() {
    return capacity;
  }

  // RAW: the keys are pool ids or operation names, and case matters in them (by default Micronaut
  // lowercases map keys, so "Checkout/*" would never match a pool of service Checkout).
  public void setCapacity(
      @MapFormat(keyFormat = StringConvention.RAW) Map<String, Double> capacity) {
    this.capacity = capacity;
  }

  public Duration getWindow() {
    return window;
  }

  public void setWindow(Duration window) {
    this.window = window;
  }

  /** How long after its end a window waits for late traces before it is final. */
  public Duration getLateness() {
    return lateness;
  }

  public void setLateness(Duration lateness) {
    this.lateness = lateness;
  }

  public int getMaxPools() {
    return maxPools;
  }

  public void setMaxPools(int maxPools) {
    this.maxPools = maxPools;
  }

  /** Final windows kept per pool for {@code GET /api/v1/pools}. */
  public int getRecentWindows() {
    return recentWindows;
  }

  public void setRecentWindows(int recentWindows) {
    this.recentWindows = recentWindows;
  }
}
