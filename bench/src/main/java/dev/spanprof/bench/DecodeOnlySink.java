package dev.spanprof.bench;

import dev.spanprof.ingest.ZstdDecompressor;
import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCalls;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The physical limit to compare spanprof with: an OTLP/gRPC server on the same stack (grpc-java
 * on Netty, requests taken as bytes, gzip or zstd as spanprof takes them) that parses each request
 * and discards it.
 */
public final class DecodeOnlySink implements AutoCloseable {

  private final Server server;
  private final LongAdder spans = new LongAdder();

  public DecodeOnlySink(int port) throws IOException {
    BindableService service = () -> ServerServiceDefinition.builder(TraceServiceGrpc.SERVICE_NAME)
        .addMethod(RawBytesMarshaller.TRACE_EXPORT, ServerCalls.asyncUnaryCall((body, responses) -> {
          try {
            ExportTraceServiceRequest request = ExportTraceServiceRequest.parseFrom(body);
            long count = 0;
            for (ResourceSpans resource : request.getResourceSpansList()) {
              for (ScopeSpans scope : resource.getScopeSpansList()) {
                count += scope.getSpansCount();
              }
            }
            spans.add(count);
            responses.onNext(ExportTraceServiceResponse.getDefaultInstance());
            responses.onCompleted();
          } catch (IOException e) {
            responses.onError(io.grpc.Status.INVALID_ARGUMENT.withDescription(e.getMessage())
                .asRuntimeException());
          }
        }))
        .build();
    server = NettyServerBuilder.forPort(port)
        .maxInboundMessageSize(16 * 1024 * 1024)
        .decompressorRegistry(ZstdDecompressor.registry())
        .addService(service)
        .build()
        .start();
  }

  /**
   * Runs a sink until the process is stopped, e.g. as spanprof's discarding next hop:
   * {@code java -cp bench/target/benchmarks.jar dev.spanprof.bench.DecodeOnlySink 4320}.
   */
  public static void main(String[] args) throws Exception {
    DecodeOnlySink sink = new DecodeOnlySink(args.length > 0 ? Integer.parseInt(args[0]) : 4320);
    System.out.println("decode-only OTLP/gRPC sink on port " + sink.port());
    sink.server.awaitTermination();
  }

  public int port() {
    return server.getPort();
  }

  /** Spans decoded so far. */
  public long spans() {
    return spans.sum();
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
  }
}
