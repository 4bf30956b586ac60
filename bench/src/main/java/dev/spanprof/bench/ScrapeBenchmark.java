package dev.spanprof.bench;

import dev.spanprof.analysis.distribution.DistributionRegistry;
import dev.spanprof.config.HistogramConfiguration;
import dev.spanprof.metrics.DistributionExport;
import dev.spanprof.stages.DistributionService;
import dev.spanprof.time.TimeSource;
import io.micronaut.context.ApplicationContext;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One scrape's distribution families, as {@code /metrics} serves them: every series' views read,
 * turned into buckets and quantiles, and written in the Prometheus text format. The series are
 * busy ones: {@link #VALUES_PER_SLICE} durations in every slice of the window, half a slice in
 * the current one ({@link BusySeries}). Reported per scrape.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class ScrapeBenchmark {

  private static final int VALUES_PER_SLICE = 200;
  private static final int SLICES = HistogramConfiguration.WINDOW_SLICES;

  /** Duration series; the service keeps at most 10 000 by default (spanprof.metrics.max-series). */
  @Param({"1000"})
  public int series;

  private ApplicationContext context;
  private DistributionExport export;
  private final ByteArrayOutputStream body = new ByteArrayOutputStream();

  @Setup
  public void setUp() {
    context = ApplicationContext.run(Map.of("spanprof.management.port", 0, "micronaut.server.port", -1));
    export = context.getBean(DistributionExport.class);
    DistributionRegistry registry = context.getBean(DistributionService.class).registry();
    TimeSource time = context.getBean(TimeSource.class);
    BusySeries busy = new BusySeries();
    for (int slice = 0; slice <= SLICES; slice++) {
      int values = slice < SLICES ? VALUES_PER_SLICE : VALUES_PER_SLICE / 2;
      busy.fillSlice(registry, series, values, slice, time.nanoTime());
      if (slice < SLICES) {
        registry.advance(time.nanoTime());
      }
    }
  }

  @TearDown
  public void tearDown() {
    context.close();
  }

  @Benchmark
  public int scrape() throws IOException {
    body.reset();
    new PrometheusTextFormatWriter(false).write(body, export.collect());
    return body.size();
  }
}
