package dev.spanprof.stages;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.analysis.TestSpans;
import dev.spanprof.analysis.tail.TailRoot;
import dev.spanprof.analysis.trace.TraceAnalyzer;
import dev.spanprof.assembly.AssemblyListener;
import dev.spanprof.assembly.AssemblyPolicy;
import dev.spanprof.assembly.ManualTimeSource;
import dev.spanprof.assembly.TraceAssembler;
import dev.spanprof.analysis.distribution.DistributionRegistry.Kind;
import dev.spanprof.config.AssemblyConfiguration;
import dev.spanprof.config.HistogramConfiguration;
import dev.spanprof.config.MetricsConfiguration;
import dev.spanprof.config.RankingConfiguration;
import dev.spanprof.config.TailConfiguration;
import dev.spanprof.span.SpanMapping;
import dev.spanprof.span.SpanRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * semantics.md §7: the windows across traces are slices of epoch time, a trace counted in the
 * slice of its arrival, so replicas started at different moments hold the same traces in the
 * same slices, and their states merge slice by slice.
 */
class WindowAlignmentTest {

  /** A multiple of the 6 s slices of a 60 s window. */
  private static final Instant SLICE_START = Instant.ofEpochSecond(1_800_000_000L);
  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  private final Replica first = new Replica(Duration.ZERO);
  private final Replica second = new Replica(Duration.ofMillis(3_700));

  @AfterEach
  void stop() {
    for (Replica replica : List.of(first, second)) {
      replica.ranking.stop();
      replica.distributions.stop();
    }
  }

  /**
   * The distributions' 10 s slices stay open a grace past their end (the 5 s timeout, a 1 s sweep
   * and 1 s): a trace that arrived at +19.9 s and one at +20.1 s, both analysed at about +25 s,
   * count in the slices of their arrivals, [+10 s, +20 s) and [+20 s, +30 s), and leave the
   * window with them, ten seconds apart.
   */
  @Test
  void distributions_countATraceInTheSliceOfItsArrival_thoughAnalysedInTheNext() {
    for (Replica replica : List.of(first, second)) {
      replica.advanceDistributionsThrough(SLICE_START.plusSeconds(17));
      replica.receive(SLICE_START.plusMillis(19_900), span(1, "GET /early"));
      replica.receive(SLICE_START.plusMillis(20_100), span(2, "GET /late"));
    }

    for (Replica replica : List.of(first, second)) {
      replica.advanceDistributionsThrough(SLICE_START.plusSeconds(57));
      assertThat(replica.windowCounts()).containsExactly(1L, 1L);
      // The slice [+10 s, +20 s) completed at +27 s; at +67 s the window has moved past it.
      replica.advanceDistributionsThrough(SLICE_START.plusSeconds(67));
      assertThat(replica.windowCounts()).containsExactly(0L, 1L);
      replica.advanceDistributionsThrough(SLICE_START.plusSeconds(77));
      assertThat(replica.windowCounts()).containsExactly(0L, 0L);
      assertThat(replica.cumulativeCounts()).containsExactly(1L, 1L);
    }
  }

  @Test
  void replicasStartedApart_countTheSameTracesInTheSameSlices() {
    for (Replica replica : List.of(first, second)) {
      // In the slice [+6 s, +12 s), then in [+12 s, +18 s); each analysed a timeout later.
      replica.receive(SLICE_START.plusMillis(11_900), span(1, "GET /early"));
      replica.receive(SLICE_START.plusMillis(12_100), span(2, "GET /late"));
    }

    for (Replica replica : List.of(first, second)) {
      replica.time.setWallClock(SLICE_START.plusMillis(65_999));
      assertThat(replica.rootNames()).containsExactlyInAnyOrder("GET /early", "GET /late");
      assertThat(replica.rankedNames()).containsExactlyInAnyOrder("GET /early", "GET /late");
      // At +66 s the window is [+12 s, +72 s): the slice [+6 s, +12 s) has left it on both.
      replica.time.setWallClock(SLICE_START.plusSeconds(66));
      assertThat(replica.rootNames()).containsExactly("GET /late");
      assertThat(replica.rankedNames()).containsExactly("GET /late");
    }
  }

  private static SpanRecord span(long trace, String name) {
    return SpanRecord.builder().setTraceId(0, trace).setSpanId(1).setName(name)
        .setStartNanos(0).setEndNanos(1_000_000L)
        .setResource(TestSpans.RESOURCE).setScope(TestSpans.SCOPE).build();
  }

  /** One process's assembly, analysis and windows, on a clock of its own. */
  private static final class Replica {
    final ManualTimeSource time = new ManualTimeSource();
    final RankingService ranking;
    final TailService tail;
    final DistributionService distributions;
    final TraceAssembler assembler;
    /** The distributions' next advance, at a slice's end plus the grace. */
    Instant nextAdvance = SLICE_START.plusSeconds(7);

    /** Started {@code startedLater} after the other: its monotonic clock reads that much more. */
    Replica(Duration startedLater) {
      time.advance(startedLater);
      RankingConfiguration rankingConfiguration = new RankingConfiguration();
      rankingConfiguration.setWindow(Duration.ofSeconds(60));
      ranking = new RankingService(rankingConfiguration, time, List.of(),
          () -> Optional::empty);
      tail = new TailService(new TailConfiguration(), rankingConfiguration, time);
      time.setWallClock(SLICE_START);
      distributions = new DistributionService(new HistogramConfiguration(),
          new MetricsConfiguration(), new AssemblyConfiguration(), time);
      AnalysisStage stage = new AnalysisStage(new TraceAnalyzer(SpanMapping.defaults()),
          ProfileConsumer.composite(List.of(ranking, tail, distributions)));
      assembler = new TraceAssembler(new AssemblyPolicy(TIMEOUT, Duration.ofMinutes(1), 100, 100,
          100), time, trace -> {
            stage.accept(trace);
            return true;
          }, AssemblyListener.NOOP);
    }

    /** Receives {@code span} at {@code wall}, then waits out the timeout: it is analysed. */
    void receive(Instant wall, SpanRecord span) {
      time.setWallClock(wall);
      assembler.offer(List.of(span));
      time.advance(TIMEOUT);
      assembler.sweep();
    }

    /** Runs the distributions' advances due up to {@code wall}, each at its instant. */
    void advanceDistributionsThrough(Instant wall) {
      while (!nextAdvance.isAfter(wall)) {
        time.setWallClock(nextAdvance);
        distributions.advance();
        nextAdvance = nextAdvance.plusSeconds(10);
      }
      time.setWallClock(wall);
    }

    /** The window's durations of GET /early and of GET /late. */
    List<Long> windowCounts() {
      return List.of(count("GET /early", false), count("GET /late", false));
    }

    List<Long> cumulativeCounts() {
      return List.of(count("GET /early", true), count("GET /late", true));
    }

    private long count(String operation, boolean cumulative) {
      return distributions.merged(Kind.DURATION, TestSpans.RESOURCE.serviceName(), operation)
          .map(merged -> (cumulative ? merged.cumulative() : merged.window()).getTotalCount())
          .orElse(0L);
    }

    List<String> rootNames() {
      return tail.roots().stream().map(TailRoot::root).map(root -> root.name()).toList();
    }

    List<String> rankedNames() {
      return ranking.refresh().rows().stream().map(row -> row.operation().name()).toList();
    }
  }
}
