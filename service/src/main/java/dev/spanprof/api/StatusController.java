package dev.spanprof.api;

import dev.spanprof.config.ExportConfiguration;
import dev.spanprof.config.HistogramConfiguration;
import dev.spanprof.config.RankingConfiguration;
import dev.spanprof.time.TimeSource;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.micronaut.serde.annotation.Serdeable;
import java.time.Instant;

/**
 * {@code GET /api/v1/status}: spanprof's own counters, read from the meters /metrics exposes
 * (each summed over its labels), so that the UI's overview shows the same numbers. Rates are the
 * reader's to take from two answers and their {@code nowNanos}. With peers, every replica's
 * counters added up (each span and trace is counted by one replica).
 */
@Controller("/api/v1/status")
// Waits for the peers: off the event loop, which serves this replica's own share of the query.
@ExecuteOn(TaskExecutors.BLOCKING)
final class StatusController {

  private final MeterRegistry registry;
  private final TimeSource time;
  private final boolean forwarding;
  private final long rankingWindowNs;
  private final long histogramWindowNs;
  private final Fleet fleet;

  StatusController(MeterRegistry registry, TimeSource time, ExportConfiguration export,
      RankingConfiguration ranking, HistogramConfiguration histograms, Fleet fleet) {
    this.registry = registry;
    this.fleet = fleet;
    this.time = time;
    this.forwarding = !export.getEndpoint().isBlank();
    this.rankingWindowNs = ranking.getWindow().toNanos();
    this.histogramWindowNs = histograms.getWindow().toNanos();
  }

  @Get(produces = MediaType.APPLICATION_JSON)
  HttpResponse<Status> status(@QueryValue @Nullable String scope) {
    if (fleet.answers(Answers.local(scope))) {
      Fleet.Answer<Status> answer = fleet.status(local());
      return answer.named(HttpResponse.ok(answer.value()));
    }
    return HttpResponse.ok(local());
  }

  private Status local() {
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
      long histogramWindowNs) {

    /** This answer's counters and those of {@code other} added, its clock and windows kept. */
    Status plus(Status other) {
      return new Status(nowNanos, receivedSpans + other.receivedSpans,
          refusedSpans + other.refusedSpans, exportedSpans + other.exportedSpans,
          exportFailedSpans + other.exportFailedSpans, analysedTraces + other.analysedTraces,
          bufferedSpans + other.bufferedSpans, bufferedSpansLimit + other.bufferedSpansLimit,
          forwarding || other.forwarding, rankingWindowNs, histogramWindowNs);
    }

    /** No counts: what the replicas' counters are added to. */
    Status zero() {
      return new Status(nowNanos, 0, 0, 0, 0, 0, 0, 0, false, rankingWindowNs,
          histogramWindowNs);
    }
  }
}
