package dev.spanprof.export;

import dev.spanprof.config.ExportConfiguration.Compression;
import dev.spanprof.ingest.ZstdDecompressor;
import io.grpc.CompressorRegistry;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * A second reference for spanprof's cost, beside the decode-only sink: an OTLP/gRPC pass-through
 * on spanprof's stack, what an OpenTelemetry Collector with an OTLP receiver, an OTLP exporter
 * and nothing between them does. Each request is parsed into protobuf's objects, as the sink
 * parses it, then forwarded whole to the next hop, re-encoded and compressed as spanprof forwards
 * (gzip at level 1, through ISA-L where the build made its library: hence this package); the
 * sender has its answer when the next hop has answered, so the generator's streams bound what
 * is in flight. It measures what receiving and forwarding every span cost on this stack, with
 * none of spanprof's own work (assembling, analysing, enriching).
 */
public final class PassThroughForwarder implements AutoCloseable {

  private static final int LEVEL = 1;

  private final Server server;
  private final ManagedChannel nextHop;
  private final TraceServiceGrpc.TraceServiceStub exporter;
  private final LongAdder receivedSpans = new LongAdder();
  private final LongAdder forwardedSpans = new LongAdder();

  public PassThroughForwarder(int port, String nextHopHost, int nextHopPort) throws IOException {
    CompressorRegistry compressors = CompressorRegistry.newEmptyInstance();
    compressors.register(Compressors.grpc(Compression.GZIP, LEVEL));
    nextHop = NettyChannelBuilder.forAddress(nextHopHost, nextHopPort)
        .usePlaintext()
        .compressorRegistry(compressors)
        .build();
    exporter = TraceServiceGrpc.newStub(nextHop).withCompression(Compression.GZIP.encoding());
    server = NettyServerBuilder.forPort(port)
        .maxInboundMessageSize(16 * 1024 * 1024)
        .decompressorRegistry(ZstdDecompressor.registry())
        .addService(new TraceServiceGrpc.TraceServiceImplBase() {
          @Override
          public void export(ExportTraceServiceRequest request,
              StreamObserver<ExportTraceServiceResponse> responses) {
            forward(request, responses);
          }
        })
        .build()
        .start();
  }

  private void forward(ExportTraceServiceRequest request,
      StreamObserver<ExportTraceServiceResponse> responses) {
    long spans = 0;
    for (ResourceSpans resource : request.getResourceSpansList()) {
      for (ScopeSpans scope : resource.getScopeSpansList()) {
        spans += scope.getSpansCount();
      }
    }
    receivedSpans.add(spans);
    long count = spans;
    exporter.withDeadlineAfter(10, TimeUnit.SECONDS).export(request, new StreamObserver<>() {
      @Override
      public void onNext(ExportTraceServiceResponse response) {
        forwardedSpans.add(count);
        responses.onNext(response);
      }

      @Override
      public void onError(Throwable t) {
        Status status = Status.fromThrowable(t);
        responses.onError(Status.UNAVAILABLE.withDescription(
                "the next hop answered " + status.getCode() + ": " + status.getDescription())
            .asRuntimeException());
      }

      @Override
      public void onCompleted() {
        responses.onCompleted();
      }
    });
  }

  /**
   * Runs a forwarder until the process is stopped: {@code java -cp bench/target/benchmarks.jar
   * dev.spanprof.export.PassThroughForwarder 4322 4320} listens on 4322 and forwards to a next
   * hop on localhost:4320.
   */
  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      throw new IllegalArgumentException("usage: PassThroughForwarder PORT NEXT_HOP_PORT");
    }
    int nextHopPort = Integer.parseInt(args[1]);
    PassThroughForwarder forwarder =
        new PassThroughForwarder(Integer.parseInt(args[0]), "localhost", nextHopPort);
    System.out.println("OTLP/gRPC pass-through on port " + forwarder.port() + " to localhost:"
        + nextHopPort + ", gzip level " + LEVEL + " through "
        + (IsalGzip.available() ? "ISA-L" : "zlib (ISA-L " + IsalGzip.unavailableReason() + ")"));
    forwarder.server.awaitTermination();
  }

  public int port() {
    return server.getPort();
  }

  /** Spans received so far. */
  public long receivedSpans() {
    return receivedSpans.sum();
  }

  /** Spans the next hop has taken so far. */
  public long forwardedSpans() {
    return forwardedSpans.sum();
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    nextHop.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
  }
}
