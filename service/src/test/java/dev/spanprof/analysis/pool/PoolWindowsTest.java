package dev.spanprof.analysis.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.spanprof.analysis.pool.PoolWindows.PoolWindow;
import dev.spanprof.analysis.trace.TraceBuilder;
import dev.spanprof.analysis.trace.TraceProfile.PoolUsage;
import dev.spanprof.span.StateClass;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class PoolWindowsTest {

  private static final long WINDOW = 1_000;
  private static final long LATENESS = 3_000;

  private static PoolWindows windows(double capacity) {
    return new PoolWindows(Map.of("svc/*", capacity), Duration.ofNanos(WINDOW),
        Duration.ofNanos(LATENESS), 10, 5);
  }

  /**
   * Two traces on one pool of 2 cores, interleaved in time on different threads. Separately each
   * fits in the pool; together they oversubscribe it, and wait.db loses cores to running.
   * <pre>
   *   trace A  t1 |======run======|             [0,600)
   *            t2       |=====db=====|          [300,800)
   *   trace B  t3   |======run======|           [100,700)
   *            t4           |====run====|       [400,900)
   * </pre>
   */
  @Test
  void twoInterleavedTraces_sameFiguresAsOneTraceOverTheirUnion() {
    TraceBuilder a = new TraceBuilder()
        .span("a-run", null, "t1", 0, 600)
        .span("a-db", null, "t2", 300, 800, "db.system", "mysql");
    TraceBuilder b = new TraceBuilder()
        .span("b-run", null, "t3", 100, 700)
        .span("b-run2", null, "t4", 400, 900);
    PoolWindows windows = windows(2);

    windows.add(a.analyze().segments());
    windows.add(b.analyze().segments());
    List<PoolWindow> finals = windows.finalizeDue(WINDOW + LATENESS);

    TraceBuilder union = new TraceBuilder()
        .span("alloc", null, "t0", 0, WINDOW, "spanprof.pool.capacity", 2L)
        .span("a-run", "alloc", "t1", 0, 600)
        .span("a-db", "alloc", "t2", 300, 800, "db.system", "mysql")
        .span("b-run", "alloc", "t3", 100, 700)
        .span("b-run2", "alloc", "t4", 400, 900);
    PoolUsage single = union.analyze().pools().get(0);
    assertThat(finals).singleElement().satisfies(window -> {
      assertThat(window.pool()).isEqualTo("svc/i1");
      assertThat(window.figures().attributionNs()).isEqualTo(single.attributionNs());
      assertThat(window.figures().utilization()).isEqualTo(single.utilization());
      assertThat(window.figures().availableNs()).isEqualTo(single.availableNs());
    });
    // Not what either trace alone would say: together they oversubscribe the pool.
    assertThat(single.utilization().get("application")).isGreaterThan(1);
  }

  @Test
  void window_closesOnlyAfterTheLateness_laterSegmentsCountedLate() {
    PoolWindows windows = windows(1);
    TraceBuilder trace = new TraceBuilder().span("run", null, "t1", 100, 200);
    windows.add(trace.analyze().segments());

    assertThat(windows.finalizeDue(WINDOW + LATENESS - 1)).isEmpty();
    assertThat(windows.finalizeDue(WINDOW + LATENESS)).singleElement()
        .satisfies(window -> assertThat(window.figures().attributionNs())
            .containsEntry("cpu", 100.0).containsEntry("idle", 900.0));

    windows.add(trace.analyze().segments());
    assertThat(windows.lateSegments()).isEqualTo(1);
    assertThat(windows.recent().get("svc/i1")).hasSize(1);
  }

  @Test
  void segmentAcrossWindows_splitAtTheBoundary() {
    PoolWindows windows = windows(1);
    windows.add(new TraceBuilder().span("run", null, "t1", 900, 1300).analyze().segments());

    List<PoolWindow> finals = windows.finalizeDue(2 * WINDOW + LATENESS);

    assertThat(finals).extracting(window -> window.figures().attributionNs().get("cpu"))
        .containsExactly(100.0, 300.0);
  }

  @Test
  void unconfiguredPools_ignored_poolLimitCountsDropped() {
    PoolWindows windows = new PoolWindows(Map.of("other", 1.0), Duration.ofNanos(WINDOW),
        Duration.ofNanos(LATENESS), 10, 5);
    windows.add(new TraceBuilder().span("run", null, "t1", 0, 10).analyze().segments());
    assertThat(windows.finalizeDue(Long.MAX_VALUE / 2)).isEmpty();

    PoolWindows none = new PoolWindows(Map.of("svc/*", 1.0), Duration.ofNanos(WINDOW),
        Duration.ofNanos(LATENESS), 0, 5);
    none.add(new TraceBuilder().span("run", null, "t1", 0, 10).analyze().segments());
    assertThat(none.droppedSegments()).isEqualTo(1);
  }

  /**
   * The profiling-stats seed samples the threads every 10 ms and attributes each sample to cpu,
   * the wait states or idle. On a generated workload (8 threads on 4 cores, 10 s, state changes
   * at arbitrary nanoseconds) the sampled attribution agrees with the exact sweep only within
   * sampling error, while the exact sweep partitions R·(b − a) to the nanosecond.
   */
  @Test
  void sampling10ms_agreesWithTheExactSweepWithinSamplingError() {
    long second = 1_000_000_000L;
    long length = 10 * second;
    double capacity = 4;
    Random random = new Random(7);
    String[] states = {"running", "wait.db", "wait.net"};
    StateClass[] classes = {StateClass.CPU, StateClass.WAIT, StateClass.WAIT};
    List<long[]> segments = new ArrayList<>(); // {from, to, state}
    for (int thread = 0; thread < 8; thread++) {
      long t = 0;
      while (t < length) {
        long next = Math.min(length, t + 1 + random.nextInt(300_000_000));
        if (random.nextInt(5) > 0) {
          segments.add(new long[] {t, next, random.nextInt(3)});
        }
        t = next;
      }
    }
    PoolSweep exactSweep = new PoolSweep(capacity);
    for (long[] segment : segments) {
      int s = (int) segment[2];
      exactSweep.add(states[s], classes[s], "application", 1, segment[0], segment[1]);
    }
    Map<String, Double> exact = exactSweep.finish(0, length).attributionNs();

    Map<String, Double> sampled = new TreeMap<>();
    long tick = 10_000_000L;
    for (long t = 0; t < length; t += tick) {
      PoolSweep sample = new PoolSweep(capacity);
      for (long[] segment : segments) {
        if (segment[0] <= t && t < segment[1]) {
          int s = (int) segment[2];
          sample.add(states[s], classes[s], "application", 1, t, t + tick);
        }
      }
      sample.finish(t, t + tick).attributionNs().forEach((key, value) -> sampled.merge(key, value, Double::sum));
    }

    double total = capacity * length;
    assertThat(exact.values().stream().mapToDouble(Double::doubleValue).sum())
        .isCloseTo(total, within(1e-6 * total));
    double largestError = 0;
    for (String key : exact.keySet()) {
      double error = Math.abs(sampled.getOrDefault(key, 0.0) - exact.get(key)) / total;
      largestError = Math.max(largestError, error);
      assertThat(error).as(key).isLessThan(0.01);
    }
    // Sampling is close but not exact: state changes fall between the ticks.
    assertThat(largestError).isGreaterThan(0);
  }
}
