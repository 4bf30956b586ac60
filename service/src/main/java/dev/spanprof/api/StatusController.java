package dev.spanprof.api;

import dev.spanprof.config.ExportConfiguration;
import dev.spanprof.config.HistogramConfiguration;
import dev.spanprof.config.RankingConfiguration;
import dev.spanprof.time.TimeSource;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.serde.annotation.Serdeable;
import java.time.Instant;

/**
 * {@code GET /api/v1/status}: spanprof's own counters, read from the meters /metrics exposes
 * (each summed over its labels), so that the UI's overview shows the same numbers. Rates are the
 * reader's to take from two answers and their {@code nowNanos}.
 */
@Controller("/api/v1/status")
final class StatusController {

  private final MeterRegistry registry;
  private final TimeSource time;
  private final boolean forwarding;
  private final long rankingWindowNs;
  private final long histogramWindowNs;

  StatusController(MeterRegistry registry, TimeSource time, ExportConfiguration export,
      RankingConfiguration ranking, HistogramConfiguration histograms) {
    this.registry = registry;
    this.time = time;
    this.forwarding = !export.getEndpoint().isBlank();
    this.rankingWindowNs = ranking.getWindow().toNanos();
    this.histogramWindowNs = histograms.getWindow().toNanos();
  }

  @Get(produces = MediaType.APPLICATION_JSON)
  Status status() {
    Instant now = time.now();
    return new Status(now.getEpochSecond() * 1_000_000_000 + now.getNano(), count("spanprof.received.spans"),
        count("spanprof.refused.spans"), count("spanprof.exported.spans"),
        count("spanprof.export.failed.spans"), count("spanprof.traces"),
        (long) gauge("spanprof.buffered.spans"), (long) gauge("spanprof.buffered.spans.limit"),
        forwarding, rankingWindowNs, histogramWindowNs);
  }

  private long count(String name) {
    return (long) registry.find(name).counters().stream().mapToDouble(Counter::count).sum();
  }

  private double gauge(String name) {
    return registry.find(name).gauges().stream().mapToDouble(Gauge::value).sum();
  }

  /**
   * @param nowNanos when the counters were read, epoch nanoseconds
   * @param receivedSpans spanprof_received_spans_total
   * @param refusedSpans spanprof_refused_spans_total
   * @param exportedSpans spanprof_exported_spans_total
   * @param exportFailedSpans spanprof_export_failed_spans_total
   * @param analysedTraces spanprof_traces_total
   * @param bufferedSpans spanprof_buffered_spans
   * @param bufferedSpansLimit spanprof_buffered_spans_limit
   * @param forwarding whether spans are forwarded ({@code spanprof.export.endpoint} set)
   * @param rankingWindowNs what the ranking's figures cover ({@code spanprof.ranking.window})
   * @param histogramWindowNs what the distributions' sliding quantiles cover
   *     ({@code spanprof.histogram.window})
   */
  @Serdeable
  record Status(
      long nowNanos,
      long receivedSpans,
      long refusedSpans,
      long exportedSpans,
      long exportFailedSpans,
      long analysedTraces,
      long bufferedSpans,
      long bufferedSpansLimit,
      boolean forwarding,
      long rankingWindowNs,
      long histogramWindowNs) {}
}
