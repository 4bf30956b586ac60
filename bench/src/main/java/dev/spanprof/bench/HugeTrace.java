package dev.spanprof.bench;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.ByteBuffer;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Sends one trace of many spans as many requests, as a batch job or a runaway loop would: the
 * load generator's spans with one trace id and distinct span ids. A request refused as full is
 * retried after a second, as an SDK would, until it is taken; prints what was sent and refused.
 *
 * <p>Usage: {@code HugeTrace HOST:PORT REQUESTS SPANS_PER_REQUEST}, e.g. {@code localhost:4317 100
 * 10000} for the million-span trace of {@code bench/huge-trace.sh}.
 */
public final class HugeTrace {

  private HugeTrace() {}

  public static void main(String[] args) throws InterruptedException {
    String[] target = args[0].split(":");
    int requests = Integer.parseInt(args[1]);
    int spansPerRequest = Integer.parseInt(args[2]);
    ManagedChannel channel = NettyChannelBuilder.forAddress(target[0], Integer.parseInt(target[1]))
        .usePlaintext().maxInboundMessageSize(64 << 20).build();
    TraceServiceGrpc.TraceServiceBlockingStub stub = TraceServiceGrpc.newBlockingStub(channel);
    byte[] id = new byte[16];
    ThreadLocalRandom.current().nextBytes(id);
    ByteString traceId = ByteString.copyFrom(id);
    Workload workload = new Workload(spansPerRequest, spansPerRequest);
    long spanId = 1;
    long refusals = 0;
    for (int r = 0; r < requests; r++) {
      ExportTraceServiceRequest.Builder request =
          workload.request(System.currentTimeMillis() * 1_000_000).toBuilder();
      for (ResourceSpans.Builder resource : request.getResourceSpansBuilderList()) {
        for (ScopeSpans.Builder scope : resource.getScopeSpansBuilderList()) {
          for (Span.Builder span : scope.getSpansBuilderList()) {
            span.setTraceId(traceId)
                .setSpanId(ByteString.copyFrom(ByteBuffer.allocate(8).putLong(spanId++).array()))
                .clearParentSpanId();
          }
        }
      }
      ExportTraceServiceRequest built = request.build();
      while (true) {
        try {
          stub.withDeadlineAfter(60, TimeUnit.SECONDS).export(built);
          break;
        } catch (StatusRuntimeException e) {
          Status.Code code = e.getStatus().getCode();
          if (code != Status.Code.RESOURCE_EXHAUSTED && code != Status.Code.UNAVAILABLE) {
            throw e;
          }
          refusals++;
          TimeUnit.SECONDS.sleep(1);
        }
      }
    }
    System.out.printf("sent %d spans of one trace in %d requests; %d refusals retried%n",
        (long) requests * spansPerRequest, requests, refusals);
    channel.shutdownNow();
  }
}
