package dev.spanprof.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collection;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Every JMH benchmark runs for one short iteration, so none can rot unnoticed. It measures
 * nothing: the figures are in BENCHMARKS.md, from full runs.
 */
class BenchmarksSmokeTest {

  @Test
  void everyBenchmark_runsOneShortIteration() throws Exception {
    Collection<RunResult> results = new Runner(new OptionsBuilder()
        .include("dev\\.spanprof\\..*Benchmark")
        .forks(0)
        .warmupIterations(0)
        .measurementIterations(1)
        .measurementTime(TimeValue.milliseconds(50))
        .param("spansPerTrace", "10")
        .param("operations", "100")
        .param("series", "100")
        .param("valuesPerSlice", "500")
        .shouldFailOnError(true)
        .build()).run();

    assertThat(results).extracting(result -> result.getParams().getBenchmark())
        .contains("dev.spanprof.ingest.DecodeBenchmark.parseAndMap",
            "dev.spanprof.ingest.DecodeBenchmark.countOnly",
            "dev.spanprof.ingest.DecodeBenchmark.jsonDecodeAndMap",
            "dev.spanprof.ingest.DecodeBenchmark.jsonCountOnly",
            "dev.spanprof.bench.AssemblyBenchmark.offer",
            "dev.spanprof.bench.AnalysisBenchmark.analyze",
            "dev.spanprof.bench.RankingBenchmark.refresh",
            "dev.spanprof.bench.HistogramBenchmark.lookupAndRecord",
            "dev.spanprof.bench.HistogramBenchmark.percentileRank",
            "dev.spanprof.bench.YoungSliceBenchmark.record",
            "dev.spanprof.bench.WindowAdvanceBenchmark.advance",
            "dev.spanprof.bench.SeriesSnapshotBenchmark.snapshot",
            "dev.spanprof.bench.ScrapeBenchmark.scrape",
            "dev.spanprof.export.EnrichmentBenchmark.appendBytes",
            "dev.spanprof.export.EnrichmentBenchmark.rebuild",
            "dev.spanprof.export.ExportRequestBenchmark.arrayThenGzip",
            "dev.spanprof.export.ExportRequestBenchmark.streamedIntoGzip",
            "dev.spanprof.export.ExportRequestBenchmark.streamedIntoZlib",
            "dev.spanprof.export.EndToEndBenchmark.walkAnalyseEnrichForward",
            "dev.spanprof.bench.PipelineBenchmark.analyseAndRecord",
            "dev.spanprof.api.FleetStateBenchmark.mergeRanking",
            "dev.spanprof.api.FleetStateBenchmark.mergeTail");
    assertThat(results).allSatisfy(result ->
        assertThat(result.getPrimaryResult().getScore()).isPositive());
  }
}
