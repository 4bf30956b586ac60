package dev.spanprof.bench;

import dev.spanprof.ingest.ZstdDecompressor;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The physical limit to compare spanprof with: an OTLP/gRPC server on the same stack (grpc-java
 * on Netty, requests taken as bytes, gzip or zstd as spanprof takes them) that parses each request
 * and discards it.
 *
 * <p>As spanprof's next hop it may also discard each request {@linkplain #undecoded undecoded}:
 * its bytes are read off the stream (decompressed, as gRPC does for any receiver) and dropped
 * without parsing, the least a receiver can do with them.
 */
public final class DecodeOnlySink implements AutoCloseable {

  /** OTLP's trace {@code Export} method with the request read to its end and dropped. */
  private static final MethodDescriptor<Long, ExportTraceServiceResponse> DISCARDED_EXPORT =
      TraceServiceGrpc.getExportMethod().toBuilder(new DiscardingMarshaller(),
              ProtoUtils.marshaller(ExportTraceServiceResponse.getDefaultInstance()))
          .build();

  private final Server server;
  private final LongAdder spans = new LongAdder();
  private final LongAdder requests = new LongAdder();
  private final LongAdder bytes = new LongAdder();

  /** A sink that parses each request, counting its spans. */
  public DecodeOnlySink(int port) throws IOException {
    this(port, true);
  }

  /** A sink that reads each request's bytes and drops them, unparsed; it counts no spans. */
  public static DecodeOnlySink undecoded(int port) throws IOException {
    return new DecodeOnlySink(port, false);
  }

  private DecodeOnlySink(int port, boolean decodes) throws IOException {
    ServerServiceDefinition.Builder service =
        ServerServiceDefinition.builder(TraceServiceGrpc.SERVICE_NAME);
    if (decodes) {
      service.addMethod(RawBytesMarshaller.TRACE_EXPORT,
          ServerCalls.asyncUnaryCall(this::decode));
    } else {
      service.addMethod(DISCARDED_EXPORT,
          ServerCalls.asyncUnaryCall(this::received));
    }
    server = NettyServerBuilder.forPort(port)
        .maxInboundMessageSize(16 * 1024 * 1024)
        .decompressorRegistry(ZstdDecompressor.registry())
        .addService(service.build())
        .build()
        .start();
  }

  private void decode(byte[] body, StreamObserver<ExportTraceServiceResponse> responses) {
    try {
      ExportTraceServiceRequest request = ExportTraceServiceRequest.parseFrom(body);
      long count = 0;
      for (ResourceSpans resource : request.getResourceSpansList()) {
        for (ScopeSpans scope : resource.getScopeSpansList()) {
          count += scope.getSpansCount();
        }
      }
      spans.add(count);
      received(body.length, responses);
    } catch (IOException e) {
      responses.onError(io.grpc.Status.INVALID_ARGUMENT.withDescription(e.getMessage())
          .asRuntimeException());
    }
  }

  private void received(long length, StreamObserver<ExportTraceServiceResponse> responses) {
    requests.increment();
    bytes.add(length);
    responses.onNext(ExportTraceServiceResponse.getDefaultInstance());
    responses.onCompleted();
  }

  /** Reads a received message to its end and keeps only its length (a sink sends none). */
  private static final class DiscardingMarshaller implements MethodDescriptor.Marshaller<Long> {
    @Override
    public InputStream stream(Long value) {
      throw new UnsupportedOperationException("the sink only receives requests");
    }

    @Override
    public Long parse(InputStream stream) {
      try (stream) {
        return stream.transferTo(OutputStream.nullOutputStream());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /**
   * Runs a sink until the process is stopped, e.g. as spanprof's discarding next hop:
   * {@code java -cp bench/target/benchmarks.jar dev.spanprof.bench.DecodeOnlySink 4320}, with
   * {@code --undecoded} after the port to drop requests unparsed.
   */
  public static void main(String[] args) throws Exception {
    int port = args.length > 0 ? Integer.parseInt(args[0]) : 4320;
    boolean undecoded = args.length > 1 && args[1].equals("--undecoded");
    if (args.length > 1 && !undecoded) {
      throw new IllegalArgumentException("usage: DecodeOnlySink [PORT [--undecoded]]");
    }
    DecodeOnlySink sink = undecoded ? undecoded(port) : new DecodeOnlySink(port);
    System.out.println((undecoded ? "discarding (undecoded)" : "decode-only")
        + " OTLP/gRPC sink on port " + sink.port());
    sink.server.awaitTermination();
  }

  public int port() {
    return server.getPort();
  }

  /** Spans decoded so far (none when requests are discarded undecoded). */
  public long spans() {
    return spans.sum();
  }

  /** Requests received so far. */
  public long requests() {
    return requests.sum();
  }

  /** Bytes of the requests received so far, decompressed. */
  public long bytes() {
    return bytes.sum();
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
  }
}
