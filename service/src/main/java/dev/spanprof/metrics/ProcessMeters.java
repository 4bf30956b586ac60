package dev.spanprof.metrics;

import com.sun.management.OperatingSystemMXBean;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;
import java.lang.management.ManagementFactory;

/**
 * Keeps /metrics clean under {@code promtool check metrics}: Micrometer's
 * {@code process_cpu_time_ns_total} (an abbreviated unit) gives way to Prometheus clients'
 * standard {@code process_cpu_seconds_total}, and {@code system_cpu_count} (a gauge with a
 * {@code _count} suffix, which Prometheus reserves for histograms and summaries) is left out.
 */
@Factory
final class ProcessMeters {

  private static final double NANOS_PER_SECOND = 1e9;

  @Singleton
  MeterFilter lintCleanProcessMeters() {
    return MeterFilter.deny(id ->
        id.getName().equals("process.cpu.time") || id.getName().equals("system.cpu.count"));
  }

  /** Registers {@code process_cpu_seconds_total} when the JVM reports its process CPU time. */
  @Context
  static final class ProcessCpu {
    ProcessCpu(MeterRegistry registry) {
      if (ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os
          && os.getProcessCpuTime() >= 0) {
        FunctionCounter.builder("process.cpu", os,
                bean -> bean.getProcessCpuTime() / NANOS_PER_SECOND)
            .description("CPU time used by the spanprof process")
            .baseUnit("seconds")
            .register(registry);
      }
    }
  }
}
