package dev.spanprof.ingest;

import dev.spanprof.bench.Workload;
import dev.spanprof.config.IngestConfiguration;
import dev.spanprof.otlp.OtlpJson;
import dev.spanprof.span.SpanMapping;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.store.SpanStore;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * OTLP decode into span records: a 512-span export request mapped as both OTLP endpoints do (one
 * walk over its encoding; attributes checked, and decoded for the default {@code SpanMapping},
 * whose outcome each record keeps), against protobuf's own parse of the same request for
 * reference, and against counting its spans, all a refusal for a full buffer reads; and the same
 * request as OTLP/JSON, decoded and mapped as the HTTP endpoint does, or only counted. Reported
 * per span.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class DecodeBenchmark {

  static final int SPANS = 512;

  /**
   * In how many orders the spans' attribute keys come, in turn: 1 as the load generator sends
   * them (every span's keys in the same order); more as spans of several instrumentations
   * interleave, span k's keys rotated by k modulo this.
   */
  @Param({"1", "3"})
  public int keyOrders;

  private byte[] request;
  private byte[] jsonRequest;
  private final OtlpJson json = new OtlpJson();
  private OtlpTraceMapper mapper;

  @Setup
  public void setUp() {
    ExportTraceServiceRequest built =
        withKeyOrders(new Workload(20, SPANS).request(1_700_000_000_000_000_000L), keyOrders);
    request = built.toByteArray();
    jsonRequest = OtlpJson.encode(built);
    mapper = new OtlpTraceMapper(new StringInterner(100_000),
        SpanStore.ofSize(IngestConfiguration.DEFAULT_SPAN_STORE_SIZE), SpanMapping.defaults());
  }

  @Benchmark
  @OperationsPerInvocation(SPANS)
  public int parseAndMap() throws Exception {
    MappedRequest mapped = mapper.map(request);
    done(mapped);
    return mapped.spans().size();
  }

  /** Mapping plus every attribute value decoded: the whole decode of a span. */
  @Benchmark
  @OperationsPerInvocation(SPANS)
  public int mapAndDecodeAttributes() throws Exception {
    int attributes = 0;
    MappedRequest mapped = mapper.map(request);
    for (SpanRecord span : mapped.spans()) {
      attributes += span.attributes().hashCode();
    }
    done(mapped);
    return attributes;
  }

  private static ExportTraceServiceRequest withKeyOrders(ExportTraceServiceRequest request,
      int orders) {
    ExportTraceServiceRequest.Builder rotated = request.toBuilder();
    int k = 0;
    for (ResourceSpans.Builder resourceSpans : rotated.getResourceSpansBuilderList()) {
      for (ScopeSpans.Builder scopeSpans : resourceSpans.getScopeSpansBuilderList()) {
        for (Span.Builder span : scopeSpans.getSpansBuilderList()) {
          List<KeyValue> attributes = new ArrayList<>(span.getAttributesList());
          Collections.rotate(attributes, k++ % orders);
          span.clearAttributes().addAllAttributes(attributes);
        }
      }
    }
    return rotated.build();
  }

  /** What the service does once a request's spans are analysed and forwarded: slabs reused. */
  private static void done(MappedRequest mapped) {
    mapped.writer().close();
    SpanRecord.releaseBytes(mapped.spans());
  }

  /** What refusing a request costs while the buffer is full: its spans counted, not decoded. */
  @Benchmark
  @OperationsPerInvocation(SPANS)
  public int countOnly() throws Exception {
    return OtlpSpanCount.of(request, request.length);
  }

  @Benchmark
  @OperationsPerInvocation(SPANS)
  public int jsonDecodeAndMap() throws Exception {
    MappedRequest mapped = mapper.map(json.decode(jsonRequest));
    done(mapped);
    return mapped.spans().size();
  }

  /** What refusing the request as OTLP/JSON costs while the buffer is full. */
  @Benchmark
  @OperationsPerInvocation(SPANS)
  public int jsonCountOnly() throws Exception {
    return OtlpJsonSpanCount.of(jsonRequest);
  }

  @Benchmark
  @OperationsPerInvocation(SPANS)
  public ExportTraceServiceRequest parseOnly() throws Exception {
    return ExportTraceServiceRequest.parseFrom(request);
  }
}
