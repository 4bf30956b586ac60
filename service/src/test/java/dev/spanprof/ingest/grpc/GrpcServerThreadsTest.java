package dev.spanprof.ingest.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.util.concurrent.ListenableFuture;
import dev.spanprof.span.TraceId;
import dev.spanprof.testing.Otlp;
import dev.spanprof.testing.Ports;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.netty.NettyChannelBuilder;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.env.Environment;
import io.micronaut.runtime.server.EmbeddedServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The gRPC server runs its calls on spanprof's fixed pool, and the pool ends with the context. */
class GrpcServerThreadsTest {

  @Test
  void concurrentExports_oneConfiguredThread_allRunOnItAndItEndsWithTheContext() throws Exception {
    Set<Thread> callThreads;
    try (ApplicationContext context = ApplicationContext.run(EmbeddedServer.class, Map.of(
            "spanprof.ingest.grpc-threads", 1, "test.grpc-call-threads", "recording"),
        Environment.TEST).getApplicationContext()) {
      ManagedChannel channel = NettyChannelBuilder.forAddress("localhost", Ports.of(context).grpc())
          .usePlaintext()
          .build();
      try {
        // Sent at once, so that a pool that grows a thread per waiting call would grow.
        List<ListenableFuture<ExportTraceServiceResponse>> calls = new ArrayList<>();
        for (int i = 1; i <= 8; i++) {
          calls.add(TraceServiceGrpc.newFutureStub(channel)
              .export(Otlp.request("shop", Otlp.span(new TraceId(7, i), i))));
        }
        for (var call : calls) {
          assertThat(call.get(30, TimeUnit.SECONDS))
              .isEqualTo(ExportTraceServiceResponse.getDefaultInstance());
        }
      } finally {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
      callThreads = Set.copyOf(context.getBean(CallThreads.class).threads);
    }

    assertThat(callThreads).hasSize(1)
        .allSatisfy(thread -> assertThat(thread.getName()).isEqualTo("spanprof-grpc-1"));
    for (Thread thread : callThreads) {
      thread.join(TimeUnit.SECONDS.toMillis(30));
      assertThat(thread.isAlive()).as("%s after the context closed", thread.getName()).isFalse();
    }
  }

  /** Records the threads the server starts its calls on: interceptors run on the call's executor. */
  @Singleton
  @Requires(property = "test.grpc-call-threads", value = "recording")
  static final class CallThreads implements ServerInterceptor {
    final Set<Thread> threads = ConcurrentHashMap.newKeySet();

    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
        ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
      threads.add(Thread.currentThread());
      return next.startCall(call, headers);
    }
  }
}
