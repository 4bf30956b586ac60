package dev.spanprof.bench;

import dev.spanprof.analysis.trace.TraceAnalyzer;
import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.ingest.BenchSpans;
import dev.spanprof.span.SpanMapping;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.TraceId;
import java.util.List;

/**
 * The heap a kept profile takes, as the query API keeps the last {@code spanprof.query.recent-traces}
 * (without the pools' segments, with the lanes and critical path the UI draws): {@code profiles}
 * analyses (default 10 000) of the load generator's trace of {@code spans} spans (default 20), kept.
 * Prints the heap used after a full collection, before and after, per profile.
 *
 * <p>{@code java -cp bench/target/benchmarks.jar dev.spanprof.bench.ProfileFootprint [profiles] [spans]}
 */
public final class ProfileFootprint {

  private ProfileFootprint() {}

  public static void main(String[] args) {
    int profiles = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    int spansPerTrace = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    List<SpanRecord> spans = BenchSpans.map(new Workload(spansPerTrace, spansPerTrace)
        .request(1_700_000_000_000_000_000L));
    TraceAnalyzer analyzer = new TraceAnalyzer(SpanMapping.defaults(), false);
    TraceProfile[] kept = new TraceProfile[profiles];
    long before = SeriesFootprint.usedAfterGc();
    for (int k = 0; k < profiles; k++) {
      kept[k] = analyzer.analyze(new TraceId(1, k), spans).withoutSegments();
    }
    long after = SeriesFootprint.usedAfterGc();
    System.out.printf("%d profiles of %d spans (%d lane segments, %d critical-path segments each):"
            + " %.1f MB, %.0f B per profile%n", kept.length, spansPerTrace,
        kept[0].lanes().size(), kept[0].criticalPath().size(), (after - before) / 1e6,
        (after - before) / (double) profiles);
  }
}
