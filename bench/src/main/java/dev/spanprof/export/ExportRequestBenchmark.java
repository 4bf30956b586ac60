package dev.spanprof.export;

import dev.spanprof.analysis.trace.TraceAnalyzer;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.assembly.Completion;
import dev.spanprof.bench.Workload;
import dev.spanprof.config.ExportConfiguration.Compression;
import dev.spanprof.config.IngestConfiguration;
import dev.spanprof.ingest.BenchSpans;
import dev.spanprof.span.SpanMapping;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.store.SpanStore;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * One forwarded request of 500 enriched spans (25 traces of 20), gzipped at spanprof's default
 * level 1: encoded into an array that is then compressed, against encoded straight into the
 * compressor, as the gRPC forwarder now does; streamed into the JDK's zlib at level 1, which the
 * senders' gzip is where ISA-L is not built ({@link IsalGzip}); and streamed into zstd at level
 * 1, the other compression. The compressed bytes go to a stream that only counts them, standing
 * for gRPC's pooled buffers. Per span.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ExportRequestBenchmark {

  private static final int SPANS = 500;
  private static final int LEVEL = 1;

  private final List<ExportEntry> entries = new ArrayList<>(SPANS);
  private final CountingStream compressed = new CountingStream();

  @Setup
  public void setUp() {
    List<SpanRecord> spans = BenchSpans.map(new Workload(20, SPANS).request(1_700_000_000_000_000_000L));
    SpanEnricher enricher = new SpanEnricher(span -> 50.0,
        SpanStore.ofSize(IngestConfiguration.DEFAULT_SPAN_STORE_SIZE));
    TraceAnalyzer analyzer = new TraceAnalyzer(SpanMapping.defaults());
    for (int from = 0; from < SPANS; from += 20) {
      List<SpanRecord> trace = spans.subList(from, from + 20);
      CompletedTrace completed = new CompletedTrace(trace.get(0).traceId(), trace, Completion.TIMEOUT, false, 0);
      entries.addAll(enricher.enrich(completed, analyzer.analyze(completed.traceId(), trace)));
    }
  }

  @Benchmark
  @OperationsPerInvocation(SPANS)
  public long arrayThenGzip() throws IOException {
    byte[] request = ExportRequest.of(entries).toByteArray();
    try (OutputStream gzip = Compressors.stream(Compression.GZIP, LEVEL, compressed)) {
      gzip.write(request);
    }
    return compressed.count;
  }

  @Benchmark
  @OperationsPerInvocation(SPANS)
  public long streamedIntoGzip() throws IOException {
    try (OutputStream gzip = Compressors.stream(Compression.GZIP, LEVEL, compressed)) {
      ExportRequest.of(entries).writeTo(gzip);
    }
    return compressed.count;
  }

  @Benchmark
  @OperationsPerInvocation(SPANS)
  public long streamedIntoZlib() throws IOException {
    try (OutputStream gzip = Compressors.zlibGzip(LEVEL, compressed)) {
      ExportRequest.of(entries).writeTo(gzip);
    }
    return compressed.count;
  }

  @Benchmark
  @OperationsPerInvocation(SPANS)
  public long streamedIntoZstd() throws IOException {
    try (OutputStream zstd = Compressors.stream(Compression.ZSTD, LEVEL, compressed)) {
      ExportRequest.of(entries).writeTo(zstd);
    }
    return compressed.count;
  }
}
