package dev.spanprof.metrics;

import dev.spanprof.analysis.pool.PoolWindows.PoolWindow;
import dev.spanprof.stages.PoolListener;
import dev.spanprof.stages.PoolService;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micronaut.context.BeanProvider;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * spanprof_pool_cpu_seconds_total{pool, class}: core-seconds of each final window attributed to
 * cpu, idle or a wait state; spanprof_pool_utilization_ratio{pool, category}: the latest final
 * window's utilization; spanprof_pool_late_segments_total and spanprof_pool_dropped_segments_total.
 */
@Singleton
final class PoolMeters implements PoolListener {

  private final MeterRegistry registry;
  private final MultiGauge utilization;
  private final Map<List<String>, Counter> cpu = new ConcurrentHashMap<>();
  private final Map<String, Map<String, Double>> latest = new TreeMap<>();

  PoolMeters(MeterRegistry registry, BeanProvider<PoolService> pools) {
    this.registry = registry;
    this.utilization = MultiGauge.builder("spanprof.pool.utilization")
        .description("Utilization of the pool's latest final window, per category")
        .baseUnit("ratio")
        .register(registry);
    FunctionCounter.builder("spanprof.pool.late.segments", pools, p -> p.get().lateSegments())
        .description("Chosen-span segments that arrived after their pool window was final")
        .register(registry);
    FunctionCounter.builder("spanprof.pool.dropped.segments", pools, p -> p.get().droppedSegments())
        .description("Chosen-span segments of pools beyond spanprof.pools.max-pools")
        .register(registry);
  }

  @Override
  public void onFinal(PoolWindow window) {
    window.figures().attributionNs().forEach((attributedClass, coreNanos) ->
        cpu.computeIfAbsent(List.of(window.pool(), attributedClass), unused ->
                Counter.builder("spanprof.pool.cpu")
                    .description("Core time of the pool attributed to cpu, idle or a wait state")
                    .baseUnit("seconds")
                    .tags("pool", window.pool(), "class", attributedClass)
                    .register(registry))
            .increment(coreNanos / 1e9));
    synchronized (latest) {
      latest.put(window.pool(), window.figures().utilization());
      List<MultiGauge.Row<?>> rows = new ArrayList<>();
      latest.forEach((pool, shares) -> shares.forEach((category, share) ->
          rows.add(MultiGauge.Row.of(Tags.of("pool", pool, "category", category), share))));
      utilization.register(rows, true);
    }
  }
}
