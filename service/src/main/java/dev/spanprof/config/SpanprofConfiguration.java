package dev.spanprof.config;

import io.micronaut.context.annotation.ConfigurationProperties;
import java.time.Duration;

/** {@code spanprof.*} keys that belong to no narrower prefix. */
@ConfigurationProperties(SpanprofConfiguration.PREFIX)
public final class SpanprofConfiguration {

  public static final String PREFIX = "spanprof";
  /** Within Kubernetes' default 30 s termination grace period, with room to spare. */
  public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(20);

  private Duration shutdownTimeout = DEFAULT_SHUTDOWN_TIMEOUT;

  /** How long shutdown may take to hand every buffered trace to the analysis and finish it. */
  public Duration getShutdownTimeout() {
    return shutdownTimeout;
  }

  public void setShutdownTimeout(Duration shutdownTimeout) {
    this.shutdownTimeout = shutdownTimeout;
  }
}
