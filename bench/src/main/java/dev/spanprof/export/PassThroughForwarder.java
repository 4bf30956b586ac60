package dev.spanprof.export;

import dev.spanprof.bench.RawBytesMarshaller;
import dev.spanprof.config.ExportConfiguration.Compression;
import dev.spanprof.ingest.ZstdDecompressor;
import io.grpc.CallOptions;
import io.grpc.CompressorRegistry;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import java.io.IOException;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * A second reference for spanprof's cost, beside the decode-only sink: an OTLP/gRPC pass-through
 * on spanprof's stack, what an OpenTelemetry Collector with an OTLP receiver, an OTLP exporter
 * and nothing between them does. Each request is parsed into protobuf's objects, as the sink
 * parses it, then forwarded whole to the next hop, compressed as spanprof forwards (gzip at level
 * 1, through ISA-L where the build made its library: hence this package); the sender has its
 * answer when the next hop has answered, so the generator's streams bound what is in flight. It
 * measures what receiving and forwarding every span cost on this stack, with none of spanprof's
 * own work (assembling, analysing, enriching).
 *
 * <p>What it forwards is the parsed request encoded again, as the Collector does ({@link
 * Forwarded#REENCODED}), or the bytes it received ({@link Forwarded#RECEIVED_BYTES}): the sink's
 * work and a second trip through gRPC with gzip, and nothing else, the least a component that
 * decodes and forwards can cost here.
 */
public final class PassThroughForwarder implements AutoCloseable {

  private static final int LEVEL = 1;
  private static final CallOptions SEND_OPTIONS =
      CallOptions.DEFAULT.withCompression(Compression.GZIP.encoding());

  /** What the pass-through forwards of each request. */
  public enum Forwarded {
    /** The request parsed into protobuf's objects, encoded again. */
    REENCODED,
    /** The bytes received, once they have been parsed as the sink parses them. */
    RECEIVED_BYTES
  }

  private final Server server;
  private final ManagedChannel nextHop;
  private final LongAdder receivedSpans = new LongAdder();
  private final LongAdder forwardedSpans = new LongAdder();

  public PassThroughForwarder(int port, String nextHopHost, int nextHopPort, Forwarded forwarded)
      throws IOException {
    CompressorRegistry compressors = CompressorRegistry.newEmptyInstance();
    compressors.register(Compressors.grpc(Compression.GZIP, LEVEL));
    nextHop = NettyChannelBuilder.forAddress(nextHopHost, nextHopPort)
        .usePlaintext()
        .compressorRegistry(compressors)
        .build();
    server = NettyServerBuilder.forPort(port)
        .maxInboundMessageSize(16 * 1024 * 1024)
        .decompressorRegistry(ZstdDecompressor.registry())
        .addService(forwarded == Forwarded.REENCODED ? reencoding() : receivedBytes())
        .build()
        .start();
  }

  private ServerServiceDefinition reencoding() {
    return new TraceServiceGrpc.TraceServiceImplBase() {
      @Override
      public void export(ExportTraceServiceRequest request,
          StreamObserver<ExportTraceServiceResponse> responses) {
        forward(request, TraceServiceGrpc.getExportMethod(), request, responses);
      }
    }.bindService();
  }

  /** Receives each request's bytes and parses them as the sink does, then forwards the bytes. */
  private ServerServiceDefinition receivedBytes() {
    return ServerServiceDefinition.builder(TraceServiceGrpc.SERVICE_NAME)
        .addMethod(RawBytesMarshaller.TRACE_EXPORT, ServerCalls.asyncUnaryCall(this::forwardBytes))
        .build();
  }

  private void forwardBytes(byte[] body, StreamObserver<ExportTraceServiceResponse> responses) {
    ExportTraceServiceRequest request;
    try {
      request = ExportTraceServiceRequest.parseFrom(body);
    } catch (IOException e) {
      responses.onError(Status.INVALID_ARGUMENT.withDescription(e.getMessage())
          .asRuntimeException());
      return;
    }
    forward(request, RawBytesMarshaller.TRACE_EXPORT, body, responses);
  }

  /**
   * Counts the request's spans and sends {@code message}, the request as {@code method} encodes
   * it, to the next hop, whose answer goes to the sender.
   */
  private <T> void forward(ExportTraceServiceRequest request,
      MethodDescriptor<T, ExportTraceServiceResponse> method, T message,
      StreamObserver<ExportTraceServiceResponse> responses) {
    long spans = 0;
    for (ResourceSpans resource : request.getResourceSpansList()) {
      for (ScopeSpans scope : resource.getScopeSpansList()) {
        spans += scope.getSpansCount();
      }
    }
    receivedSpans.add(spans);
    long count = spans;
    StreamObserver<ExportTraceServiceResponse> answer = new StreamObserver<>() {
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
    };
    ClientCalls.asyncUnaryCall(
        nextHop.newCall(method, SEND_OPTIONS.withDeadlineAfter(10, TimeUnit.SECONDS)), message,
        answer);
  }

  /**
   * Runs a forwarder until the process is stopped: {@code java -cp bench/target/benchmarks.jar
   * dev.spanprof.export.PassThroughForwarder 4322 4320 [reencoded|received-bytes]} listens on
   * 4322 and forwards to a next hop on localhost:4320, the requests encoded again (the default)
   * or their received bytes.
   */
  public static void main(String[] args) throws Exception {
    if (args.length < 2 || args.length > 3) {
      throw new IllegalArgumentException(
          "usage: PassThroughForwarder PORT NEXT_HOP_PORT [reencoded|received-bytes]");
    }
    int nextHopPort = Integer.parseInt(args[1]);
    Forwarded forwarded = args.length == 2 ? Forwarded.REENCODED
        : Forwarded.valueOf(args[2].toUpperCase(Locale.ROOT).replace('-', '_'));
    PassThroughForwarder forwarder =
        new PassThroughForwarder(Integer.parseInt(args[0]), "localhost", nextHopPort, forwarded);
    System.out.println("OTLP/gRPC pass-through on port " + forwarder.port() + " to localhost:"
        + nextHopPort + ", forwarding " + forwarded + ", gzip level " + LEVEL + " through "
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
