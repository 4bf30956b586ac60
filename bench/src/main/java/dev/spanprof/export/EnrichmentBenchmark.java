package dev.spanprof.export;

import dev.spanprof.analysis.trace.TraceAnalyzer;
import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.analysis.trace.TraceProfile.SpanProfile;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.assembly.Completion;
import dev.spanprof.bench.Workload;
import dev.spanprof.config.IngestConfiguration;
import dev.spanprof.ingest.BenchSpans;
import dev.spanprof.span.SpanMapping;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.store.SpanStore;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.Span;
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
 * Enrichment of a 20-span trace: appending the attributes to each span's original bytes (what
 * spanprof does) against parsing each span, adding the attributes and re-encoding it. Per span.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class EnrichmentBenchmark {

  private CompletedTrace trace;
  private TraceProfile profile;
  private SpanEnricher enricher;

  @Setup
  public void setUp() {
    List<SpanRecord> spans = BenchSpans.map(new Workload(20, 20).request(1_700_000_000_000_000_000L));
    trace = new CompletedTrace(spans.get(0).traceId(), spans, Completion.TIMEOUT, false, 0);
    profile = new TraceAnalyzer(SpanMapping.defaults()).analyze(trace.traceId(), spans);
    enricher = new SpanEnricher(span -> 50.0,
        SpanStore.ofSize(IngestConfiguration.DEFAULT_SPAN_STORE_SIZE));
  }

  @Benchmark
  @OperationsPerInvocation(20)
  public List<ExportEntry> appendBytes() {
    // Given back at once, as the forwarder does once they are sent, so the store is used again.
    List<ExportEntry> entries = enricher.enrich(trace, profile);
    ExportEntry.release(entries);
    return entries;
  }

  @Benchmark
  @OperationsPerInvocation(20)
  public List<byte[]> rebuild() throws Exception {
    List<byte[]> spans = new ArrayList<>(20);
    for (int i = 0; i < trace.spanCount(); i++) {
      SpanProfile result = profile.spans().get(i);
      SpanRecord span = trace.spans().get(i);
      spans.add(Span.parseFrom(span.copyOfEncoded()).toBuilder()
          .addAttributes(string("spanprof.resource", result.resource()))
          .addAttributes(string("spanprof.state", result.state()))
          .addAttributes(integer("spanprof.self_time_ns", result.selfTimeNs()))
          .addAttributes(integer("spanprof.critical_path_ns", result.criticalPathNs()))
          .addAttributes(KeyValue.newBuilder().setKey("spanprof.on_critical_path")
              .setValue(AnyValue.newBuilder().setBoolValue(result.onCriticalPath())))
          .addAttributes(KeyValue.newBuilder().setKey("spanprof.duration_percentile")
              .setValue(AnyValue.newBuilder().setDoubleValue(50.0)))
          .build().toByteArray());
    }
    return spans;
  }

  private static KeyValue string(String key, String value) {
    return KeyValue.newBuilder().setKey(key).setValue(AnyValue.newBuilder().setStringValue(value)).build();
  }

  private static KeyValue integer(String key, long value) {
    return KeyValue.newBuilder().setKey(key).setValue(AnyValue.newBuilder().setIntValue(value)).build();
  }
}
