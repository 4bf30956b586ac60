package dev.spanprof.testing;

import dev.spanprof.ingest.ZstdDecompressor;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerCredentials;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.TlsServerCredentials;
import io.grpc.stub.StreamObserver;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import java.io.File;
import java.io.IOException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.IntSupplier;

/**
 * The next hop for forwarding tests: a plain grpc-java OTLP TraceService on a free port that
 * keeps every request it accepts, and answers with whatever status {@link #failWith} decides.
 */
public final class GrpcOtlpReceiver extends RecordingReceiver {

  private static final Metadata.Key<String> MESSAGE_ENCODING =
      Metadata.Key.of("grpc-encoding", Metadata.ASCII_STRING_MARSHALLER);

  private final Server server;
  private final Set<String> encodings = ConcurrentHashMap.newKeySet();
  private volatile Function<ExportTraceServiceRequest, Status> failWith = request -> null;
  private volatile CountDownLatch held = new CountDownLatch(0);
  private int arrived;
  private int attempts;

  private GrpcOtlpReceiver(ServerCredentials credentials) throws IOException {
    server = Grpc.newServerBuilderForPort(0, credentials)
        .decompressorRegistry(ZstdDecompressor.registry())
        .addService(new TraceServiceGrpc.TraceServiceImplBase() {
          @Override
          public void export(ExportTraceServiceRequest request,
              StreamObserver<ExportTraceServiceResponse> responses) {
            synchronized (GrpcOtlpReceiver.this) {
              arrived++;
              GrpcOtlpReceiver.this.notifyAll();
            }
            try {
              held.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              responses.onError(Status.CANCELLED.asRuntimeException());
              return;
            }
            Status failure;
            synchronized (GrpcOtlpReceiver.this) {
              attempts++;
              GrpcOtlpReceiver.this.notifyAll();
              failure = failWith.apply(request);
              if (failure == null) {
                record(request);
              }
            }
            if (failure != null) {
              responses.onError(failure.asRuntimeException());
            } else {
              responses.onNext(ExportTraceServiceResponse.getDefaultInstance());
              responses.onCompleted();
            }
          }
        })
        .intercept(new ServerInterceptor() {
          @Override
          public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call,
              Metadata headers, ServerCallHandler<Q, A> next) {
            String encoding = headers.get(MESSAGE_ENCODING);
            encodings.add(encoding == null ? "identity" : encoding);
            return next.startCall(call, headers);
          }
        })
        .build()
        .start();
  }

  public static GrpcOtlpReceiver plaintext() throws IOException {
    return new GrpcOtlpReceiver(InsecureServerCredentials.create());
  }

  public static GrpcOtlpReceiver tls(File certificate, File key) throws IOException {
    return new GrpcOtlpReceiver(TlsServerCredentials.create(certificate, key));
  }

  @Override
  public int port() {
    return server.getPort();
  }

  /** The message encodings (compression) of the requests so far: "gzip", "zstd", "identity". */
  public Set<String> encodings() {
    return Set.copyOf(encodings);
  }

  /** Decides each request's answer: null accepts it, a status refuses it. */
  public void failWith(Function<ExportTraceServiceRequest, Status> decision) {
    this.failWith = decision;
  }

  /** Requests that arrive from now on wait, unanswered, until {@link #releaseRequests}. */
  public void holdRequests() {
    held = new CountDownLatch(1);
  }

  /** Answers the held requests and stops holding. */
  public void releaseRequests() {
    held.countDown();
  }

  /** Waits until at least {@code count} requests arrived, held or answered. */
  public synchronized void awaitArrived(int count, Duration timeout) throws InterruptedException {
    awaitCount(() -> arrived, count, timeout);
  }

  public synchronized int attempts() {
    return attempts;
  }

  /** Waits until at least {@code count} requests were answered, accepted or not. */
  public synchronized void awaitAttempts(int count, Duration timeout) throws InterruptedException {
    awaitCount(() -> attempts, count, timeout);
  }

  private synchronized void awaitCount(IntSupplier counter, int count, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (counter.getAsInt() < count) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError("only " + counter.getAsInt() + " of " + count + " requests");
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
  }

  @Override
  public void close() throws InterruptedException {
    releaseRequests();
    server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
  }
}
