package dev.spanprof.stages;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.analysis.TestSpans;
import dev.spanprof.analysis.distribution.Distribution;
import dev.spanprof.analysis.distribution.DistributionRegistry;
import dev.spanprof.analysis.distribution.DistributionRegistry.Kind;
import dev.spanprof.analysis.distribution.DistributionRegistry.SeriesKey;
import dev.spanprof.analysis.trace.TraceAnalyzer;
import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.assembly.Completion;
import dev.spanprof.assembly.ManualTimeSource;
import dev.spanprof.config.AssemblyConfiguration;
import dev.spanprof.config.HistogramConfiguration;
import dev.spanprof.config.MetricsConfiguration;
import dev.spanprof.golden.GoldenCases;
import dev.spanprof.ingest.OtlpTestSpans;
import dev.spanprof.span.SpanKind;
import dev.spanprof.span.SpanMapping;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.SpanStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DistributionServiceTest {

  private static final List<SpanRecord> FANOUT =
      OtlpTestSpans.fromJson(GoldenCases.otlpJson("fanout-self-time"));
  private static final CompletedTrace FANOUT_TRACE =
      new CompletedTrace(FANOUT.get(0).traceId(), FANOUT, Completion.TIMEOUT, false, 0);
  private static final TraceProfile FANOUT_PROFILE =
      new TraceAnalyzer(SpanMapping.defaults()).analyze(FANOUT_TRACE.traceId(), FANOUT);

  private DistributionService service;

  @AfterEach
  void stop() {
    service.stop();
  }

  /** A configured dimension becomes a label (dots as underscores) of the span distributions. */
  @Test
  void dimensions_addLabelsFromSpanThenResourceAttributes() {
    MetricsConfiguration metrics = new MetricsConfiguration();
    metrics.setDimensions(List.of("service.instance.id", "db.system"));
    service = new DistributionService(new HistogramConfiguration(), metrics,
        new AssemblyConfiguration(), new ManualTimeSource());

    service.accept(FANOUT_TRACE, FANOUT_PROFILE, 0);

    Set<SeriesKey> keys = service.registry().all().keySet();
    assertThat(keys).contains(new SeriesKey(Kind.DURATION,
        List.of("service_name", "span_name", "span_kind", "status_code", "service_instance_id", "db_system"),
        List.of("gateway", "db", "SPAN_KIND_CLIENT", "STATUS_CODE_UNSET", "g1", "postgresql")));
    assertThat(keys).contains(new SeriesKey(Kind.SELF_TIME,
        List.of("service_name", "span_name", "service_instance_id", "db_system"),
        List.of("gateway", "audit", "g1", "")));
    // The trace series are labelled by the primary root only.
    assertThat(keys.stream().filter(key -> key.kind() == Kind.TRACE_TTX).collect(Collectors.toList()))
        .containsExactly(new SeriesKey(Kind.TRACE_TTX, List.of("service_name", "span_name"),
            List.of("gateway", "GET /order")));
  }

  /**
   * Spans find their series through a map of their own; a series removed for idleness must not
   * stay there: the next span records into a new series that the registry (and the export) holds.
   */
  @Test
  void expiredSeries_nextSpanRecordsIntoANewRegisteredSeries() {
    ManualTimeSource time = new ManualTimeSource();
    service = serviceExpiringSeriesAfterAMinute(time);
    SeriesKey dbDuration = new SeriesKey(Kind.DURATION,
        List.of("service_name", "span_name", "span_kind", "status_code"),
        List.of("gateway", "db", "SPAN_KIND_CLIENT", "STATUS_CODE_UNSET"));
    service.accept(FANOUT_TRACE, FANOUT_PROFILE, time.epochNanos());
    time.advance(Duration.ofMinutes(2));
    service.registry().advance(time.epochNanos());
    assertThat(service.registry().get(dbDuration)).isNull();

    service.accept(FANOUT_TRACE, FANOUT_PROFILE, time.epochNanos());

    assertThat(service.registry().get(dbDuration)).isNotNull();
    assertThat(service.registry().get(dbDuration).snapshot().cumulative().getTotalCount()).isEqualTo(1);
    assertThat(service.durationPercentile(FANOUT.get(0), Long.MAX_VALUE)).isZero(); // not yet flushed
    service.registry().get(dbDuration).flush();
    SpanRecord db = FANOUT.stream().filter(span -> span.name().equals("db")).findFirst().orElseThrow();
    assertThat(service.durationPercentile(db, db.durationNanos())).isEqualTo(100);
  }

  /** An exemplar is stamped with its trace's arrival on the wall clock: a trace reads no clock. */
  @Test
  void exemplars_areStampedWithTheTracesArrival() {
    ManualTimeSource time = new ManualTimeSource();
    Instant wall = Instant.parse("2026-11-26T01:00:00.250Z");
    time.setWallClock(wall);
    service = new DistributionService(new HistogramConfiguration(), new MetricsConfiguration(), new AssemblyConfiguration(), time);

    service.accept(FANOUT_TRACE, FANOUT_PROFILE,
        time.epochNanos() + Duration.ofMillis(1_500).toNanos());

    List<Distribution.Exemplar> exemplars = service.registry().all().values().stream()
        .flatMap(series -> series.snapshot().exemplars().stream())
        .filter(Objects::nonNull)
        .toList();
    assertThat(exemplars).isNotEmpty()
        .allSatisfy(exemplar -> assertThat(exemplar.epochMillis())
            .isEqualTo(wall.toEpochMilli() + 1_500));
  }

  /**
   * A root operation's trace series may expire on their own while its span series live on (its
   * spans keep recording as children of other roots): the next trace it is the root of records
   * into new registered trace series.
   */
  @Test
  void expiredTraceSeries_ofALiveRootOperation_nextTraceRecordsIntoNewRegisteredSeries() {
    ManualTimeSource time = new ManualTimeSource();
    service = serviceExpiringSeriesAfterAMinute(time);
    TraceAnalyzer analyzer = new TraceAnalyzer(SpanMapping.defaults());
    CompletedTrace rootedAtR = trace(span(1, 1, 0, "r"), span(1, 2, 1, "x"));
    CompletedTrace rootedAtP = trace(span(2, 1, 0, "p"), span(2, 2, 1, "r"));
    SeriesKey rTtx = new SeriesKey(Kind.TRACE_TTX, List.of("service_name", "span_name"),
        List.of(TestSpans.RESOURCE.serviceName(), "r"));
    service.accept(rootedAtR, analyzer.analyze(rootedAtR.traceId(), rootedAtR.spans()), time.epochNanos());
    Distribution first = service.registry().get(rTtx);
    time.advance(Duration.ofMinutes(2));
    service.accept(rootedAtP, analyzer.analyze(rootedAtP.traceId(), rootedAtP.spans()), time.epochNanos());
    service.registry().advance(time.epochNanos());
    assertThat(service.registry().get(rTtx)).isNull();
    assertThat(durations(service, "r", "SPAN_KIND_INTERNAL", "STATUS_CODE_UNSET")).isEqualTo(2);

    service.accept(rootedAtR, analyzer.analyze(rootedAtR.traceId(), rootedAtR.spans()), time.epochNanos());

    Distribution renewed = service.registry().get(rTtx);
    assertThat(renewed).isNotNull().isNotSameAs(first);
    assertThat(renewed.snapshot().cumulative().getTotalCount()).isEqualTo(1);
  }

  private static DistributionService serviceExpiringSeriesAfterAMinute(ManualTimeSource time) {
    MetricsConfiguration metrics = new MetricsConfiguration();
    metrics.setSeriesExpiry(Duration.ofMinutes(1));
    return new DistributionService(new HistogramConfiguration(), metrics, new AssemblyConfiguration(), time);
  }

  private static SpanRecord span(long trace, long spanId, long parentSpanId, String name) {
    return SpanRecord.builder().setTraceId(0, trace).setSpanId(spanId)
        .setParentSpanId(parentSpanId).setName(name).setKind(SpanKind.INTERNAL)
        .setStartNanos(spanId * 1_000_000L).setEndNanos(10_000_000L)
        .setResource(TestSpans.RESOURCE).setScope(TestSpans.SCOPE).build();
  }

  private static CompletedTrace trace(SpanRecord... spans) {
    return new CompletedTrace(spans[0].traceId(), List.of(spans), Completion.TIMEOUT, false, 0);
  }

  /**
   * Many operations recorded in turn: each span's lookups (recording, then the percentile) find
   * its own operation's series, even where two operations' keys hash alike.
   */
  @Test
  void spanSeries_ofManyOperations_eachFindsItsOwn() {
    service = new DistributionService(new HistogramConfiguration(), new MetricsConfiguration(),
        new AssemblyConfiguration(), new ManualTimeSource());
    TraceAnalyzer analyzer = new TraceAnalyzer(SpanMapping.defaults());
    int operations = 40;
    List<SpanRecord> spans = new ArrayList<>();
    for (int k = 0; k < operations; k++) {
      // Operation k's spans all last k + 1 ms. "Aa" and "BB" have the same String hash, so each
      // pair of operations has keys of the same hash.
      String name = (k % 2 == 0 ? "Aa-" : "BB-") + k / 2;
      spans.add(SpanRecord.builder().setTraceId(0, k + 1).setSpanId(1).setName(name)
          .setStartNanos(0).setEndNanos((k + 1) * 1_000_000L)
          .setResource(TestSpans.RESOURCE).setScope(TestSpans.SCOPE).build());
    }
    for (int round = 0; round < 3; round++) {
      for (SpanRecord span : spans) {
        CompletedTrace trace = new CompletedTrace(span.traceId(), List.of(span), Completion.TIMEOUT,
            false, 0);
        service.accept(trace, analyzer.analyze(trace.traceId(), trace.spans()), 0);
      }
    }
    service.registry().all().values().forEach(Distribution::flush);

    for (int k = 0; k < operations; k++) {
      SpanRecord span = spans.get(k);
      // Another operation's series would rank one of these 100 and the other 0. (1 % above the
      // value: a histogram bucket's top, what the ranks hold, lies a little above its values.)
      assertThat(service.durationPercentile(span, (k + 1) * 1_010_000L)).as("op-%d", k)
          .isEqualTo(100);
      assertThat(service.durationPercentile(span, k * 1_000_000L + 500_000L)).as("op-%d", k)
          .isZero();
    }
    assertThat(service.registry().size()).isEqualTo(3 * operations + 2 * operations);
  }

  /** A label set served by an overflow series is counted as overflowed for every sample. */
  @Test
  void overflowingLabelSets_countEverySampleEveryTime() {
    MetricsConfiguration metrics = new MetricsConfiguration();
    metrics.setMaxSeries(3);
    service = new DistributionService(new HistogramConfiguration(), metrics,
        new AssemblyConfiguration(), new ManualTimeSource());

    service.accept(FANOUT_TRACE, FANOUT_PROFILE, 0);
    long once = overflowSamples(service.registry());
    service.accept(FANOUT_TRACE, FANOUT_PROFILE, 0);

    assertThat(once).isPositive();
    assertThat(overflowSamples(service.registry())).isEqualTo(2 * once);
  }

  /**
   * One operation's spans of several kinds and statuses in one trace: each key's samples land in
   * its own series, and, when the series limit leaves them only overflow series, every sample is
   * counted as overflowed (a key's own series are remembered, an overflow series never is).
   */
  @Test
  void repeatedKeysInOneTrace_eachSampleInItsOwnSeriesOrCountedAsOverflowed() {
    SpanKind[] kinds = {SpanKind.CLIENT, SpanKind.CLIENT, SpanKind.CLIENT, SpanKind.CLIENT,
        SpanKind.CLIENT, SpanKind.INTERNAL};
    SpanStatus[] statuses = {SpanStatus.UNSET, SpanStatus.ERROR, SpanStatus.UNSET,
        SpanStatus.ERROR, SpanStatus.UNSET, SpanStatus.UNSET};
    List<SpanRecord> spans = new ArrayList<>();
    spans.add(SpanRecord.builder().setTraceId(0, 1).setSpanId(1).setName("r")
        .setKind(SpanKind.SERVER).setStartNanos(0).setEndNanos(100_000_000L)
        .setResource(TestSpans.RESOURCE).setScope(TestSpans.SCOPE).build());
    for (int i = 0; i < kinds.length; i++) {
      spans.add(SpanRecord.builder().setTraceId(0, 1).setSpanId(2 + i).setParentSpanId(1)
          .setName("x").setKind(kinds[i]).setStatus(statuses[i])
          .setStartNanos(i * 10_000_000L).setEndNanos(i * 10_000_000L + 1_000_000L)
          .setResource(TestSpans.RESOURCE).setScope(TestSpans.SCOPE).build());
    }
    CompletedTrace trace = new CompletedTrace(spans.get(0).traceId(), spans, Completion.TIMEOUT,
        false, 0);
    TraceProfile profile = new TraceAnalyzer(SpanMapping.defaults()).analyze(trace.traceId(), spans);
    service = new DistributionService(new HistogramConfiguration(), new MetricsConfiguration(),
        new AssemblyConfiguration(), new ManualTimeSource());

    service.accept(trace, profile, 0);
    service.accept(trace, profile, 0);

    assertThat(durations(service, "x", "SPAN_KIND_CLIENT", "STATUS_CODE_UNSET")).isEqualTo(6);
    assertThat(durations(service, "x", "SPAN_KIND_CLIENT", "STATUS_CODE_ERROR")).isEqualTo(4);
    assertThat(durations(service, "x", "SPAN_KIND_INTERNAL", "STATUS_CODE_UNSET")).isEqualTo(2);
    assertThat(durations(service, "r", "SPAN_KIND_SERVER", "STATUS_CODE_UNSET")).isEqualTo(2);

    // Room for the root's three series only: each x span's three samples, and the trace's TTX
    // and TTC, go to overflow series, each counted.
    MetricsConfiguration three = new MetricsConfiguration();
    three.setMaxSeries(3);
    DistributionService limited = new DistributionService(new HistogramConfiguration(), three,
        new AssemblyConfiguration(), new ManualTimeSource());
    try {
      limited.accept(trace, profile, 0);
      limited.accept(trace, profile, 0);

      assertThat(overflowSamples(limited.registry())).isEqualTo(2 * (3 * kinds.length + 2));
    } finally {
      limited.stop();
    }
  }

  private static long durations(DistributionService service, String name, String kind,
      String status) {
    Distribution series = service.registry().get(new SeriesKey(Kind.DURATION,
        List.of("service_name", "span_name", "span_kind", "status_code"),
        List.of(TestSpans.RESOURCE.serviceName(), name, kind, status)));
    return series == null ? 0 : series.snapshot().cumulative().getTotalCount();
  }

  private static long overflowSamples(DistributionRegistry registry) {
    long total = 0;
    for (Kind kind : Kind.values()) {
      total += registry.overflowSamples(kind);
    }
    return total;
  }
}
