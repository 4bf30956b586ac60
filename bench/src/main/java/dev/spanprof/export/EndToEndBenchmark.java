package dev.spanprof.export;

import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.assembly.AssemblyListener;
import dev.spanprof.assembly.AssemblyPolicy;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.assembly.Completion;
import dev.spanprof.assembly.TraceAssembler;
import dev.spanprof.assembly.TraceSink;
import dev.spanprof.bench.Workload;
import dev.spanprof.config.ExportConfiguration.Compression;
import dev.spanprof.ingest.BenchSpans;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.store.SpanStore;
import dev.spanprof.stages.DistributionService;
import dev.spanprof.stages.ProfileConsumer;
import dev.spanprof.time.TimeSource;
import io.micronaut.context.ApplicationContext;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Everything spanprof does to a span between gRPC's receiving and sending, in one thread: the
 * ingest walk of a 500-span request body (25 traces of 20), trace assembly, the analysis stage
 * as the service wires it (analysis, counters, distributions, ranking, pools, recent profiles),
 * enrichment, and the forwarded request encoded into gzip at level 1, the spans' holds given
 * back as the service gives them back. Reported per span; with {@code -prof gc}, the allocation
 * per span end to end, less what gRPC and Netty allocate to receive and send.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class EndToEndBenchmark {

  private static final int SPANS_PER_REQUEST = 500;
  private static final int REQUESTS = 64;
  private static final int GZIP_LEVEL = 1;

  private final List<byte[]> bodies = new ArrayList<>(REQUESTS);
  private final List<CompletedTrace> completed = new ArrayList<>();
  private final LastProfile lastProfile = new LastProfile();
  private final CountingStream compressed = new CountingStream();
  private ApplicationContext context;
  private Function<byte[], List<SpanRecord>> walk;
  private TraceAssembler assembler;
  private TraceSink analysis;
  private SpanEnricher enricher;
  private int next;

  @Setup
  public void setUp() {
    context = ApplicationContext.builder()
        .properties(Map.of("spanprof.management.port", 0, "micronaut.server.port", -1))
        .singletons(lastProfile)
        .start();
    analysis = context.getBean(TraceSink.class);
    SpanStore store = context.getBean(SpanStore.class);
    DistributionService distributions = context.getBean(DistributionService.class);
    enricher = new SpanEnricher(
        span -> distributions.durationPercentile(span, span.durationNanos()), store);
    walk = BenchSpans.walk(store);
    // No recent trace ids: the 64 requests come round again, and their traces are new each time.
    assembler = new TraceAssembler(new AssemblyPolicy(Duration.ofSeconds(5),
        Duration.ofSeconds(60), 100_000, 10_000, 0), TimeSource.system(), completed::add,
        AssemblyListener.NOOP);
    Workload workload = new Workload(20, SPANS_PER_REQUEST);
    for (int i = 0; i < REQUESTS; i++) {
      bodies.add(workload.request(1_700_000_000_000_000_000L + i * 1_000_000_000L).toByteArray());
    }
  }

  @TearDown
  public void tearDown() {
    context.close();
  }

  @Benchmark
  @OperationsPerInvocation(SPANS_PER_REQUEST)
  public long walkAnalyseEnrichForward() throws IOException {
    List<SpanRecord> spans = walk.apply(bodies.get(next++ & (REQUESTS - 1)));
    assembler.offer(spans);
    assembler.completeAll(Completion.TIMEOUT);
    List<ExportEntry> entries = new ArrayList<>(spans.size());
    for (CompletedTrace trace : completed) {
      analysis.accept(trace);
      entries.addAll(enricher.enrich(trace, lastProfile.profile));
      SpanRecord.releaseBytes(trace.spans());
    }
    completed.clear();
    try (OutputStream gzip = Compressors.stream(Compression.GZIP, GZIP_LEVEL, compressed)) {
      ExportRequest.of(entries).writeTo(gzip);
    }
    ExportEntry.release(entries);
    return compressed.count;
  }

  /** Keeps the profile the analysis stage just made, for the enrichment after it. */
  static final class LastProfile implements ProfileConsumer {
    private TraceProfile profile;

    @Override
    public void accept(CompletedTrace trace, TraceProfile traceProfile, long nowNanos) {
      profile = traceProfile;
    }
  }
}
