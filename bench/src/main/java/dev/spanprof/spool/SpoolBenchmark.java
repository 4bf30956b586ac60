package dev.spanprof.spool;

import dev.spanprof.bench.Workload;
import dev.spanprof.ingest.BenchSpans;
import dev.spanprof.span.SpanRecord;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What the spool adds to a request of the load generator's spans on its way through spanprof:
 * written (CRC-32C, one write), loaded (its resource blocks noted), and done once forwarding
 * resolves its spans, the segment deleted when full and done. Per request: divide by {@code
 * spansPerRequest} for ns per span. Written to /tmp, as the page cache takes it; syncs are not
 * included (a second's worth at once, off the request path).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SpoolBenchmark {

  @Param({"100", "512"})
  public int spansPerRequest;

  private Path directory;
  private Spool spool;
  private byte[] request;
  private List<SpanRecord> spans;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    directory = Files.createTempDirectory("spanprof-spool-bench");
    spool = new Spool(directory, Long.MAX_VALUE, 64L << 20, false, payload -> 0);
    ExportTraceServiceRequest generated =
        new Workload(20, spansPerRequest).request(1_700_000_000_000_000_000L);
    request = generated.toByteArray();
    spans = BenchSpans.map(generated);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    spool.close();
    try (Stream<Path> files = Files.walk(directory)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(file);
      }
    }
  }

  @Benchmark
  public Spool.Record appendLoadResolve() {
    Spool.Record record = spool.append(request, request.length, spans.size());
    spool.loaded(record, spans);
    spool.resolved(spans, SpanRecord::resource);
    return record;
  }
}
