package dev.spanprof.ingest.grpc;

import dev.spanprof.ingest.IngestListener;
import dev.spanprof.ingest.IngestResult;
import dev.spanprof.ingest.OtlpResponses;
import dev.spanprof.ingest.TraceIngest;
import dev.spanprof.ingest.Transport;
import com.google.rpc.Code;
import dev.spanprof.config.IngestConfiguration;
import dev.spanprof.ingest.IngestListener.RequestRejection;
import dev.spanprof.ingest.IngestResult.Outcome;
import io.grpc.BindableService;
import io.grpc.ServerServiceDefinition;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import jakarta.inject.Singleton;
import java.time.Duration;

/**
 * OTLP/gRPC {@code TraceService/Export} on the gRPC port (4317).
 *
 * <p>The request is taken as raw bytes ({@link RequestBodies}, which reuses their arrays) and
 * decoded by {@link TraceIngest}, so a body that is not protobuf gets INVALID_ARGUMENT with the
 * decoder's message instead of the generic INTERNAL a generated stub would answer. Oversized
 * messages never reach this class: gRPC's deframer refuses them with RESOURCE_EXHAUSTED beyond
 * {@code spanprof.ingest.max-message-size}. Compressed ones that expand beyond it, or do not
 * decompress, arrive refused ({@link ReceivedBody#refusal}). Statuses follow the OTLP specification:
 * RESOURCE_EXHAUSTED carries {@code RetryInfo} only when a retry can succeed.
 */
@Singleton
final class OtlpGrpcTraceService implements BindableService {

  private final TraceIngest ingest;
  private final IngestListener listener;
  private final Duration retryAfter;
  private final RequestBodies bodies = new RequestBodies();

  OtlpGrpcTraceService(TraceIngest ingest, IngestListener listener, IngestConfiguration configuration) {
    this.ingest = ingest;
    this.listener = listener;
    this.retryAfter = configuration.getRetryAfter();
  }

  @Override
  public ServerServiceDefinition bindService() {
    return ServerServiceDefinition.builder(TraceServiceGrpc.SERVICE_NAME)
        .addMethod(bodies.traceExport(), ServerCalls.asyncUnaryCall(this::export))
        .build();
  }

  private void export(ReceivedBody body, StreamObserver<ExportTraceServiceResponse> responses) {
    IngestResult result;
    if (body.refusal() != null) {
      listener.onRequestRejected(Transport.GRPC, body.refusal());
      result = IngestResult.refused(body.refusal() == RequestRejection.TOO_LARGE
          ? Outcome.TOO_LARGE : Outcome.MALFORMED, body.refusalMessage());
    } else {
      try {
        result = ingest.exportProtobuf(body.bytes(), body.length(), Transport.GRPC);
      } finally {
        body.release();
      }
    }
    switch (result.outcome()) {
      case ACCEPTED -> {
        responses.onNext(OtlpResponses.success(result));
        responses.onCompleted();
      }
      case MALFORMED -> fail(responses, Code.INVALID_ARGUMENT, result, null);
      case TOO_LARGE -> fail(responses, Code.RESOURCE_EXHAUSTED, result, null);
      case FULL -> fail(responses, Code.RESOURCE_EXHAUSTED, result, retryAfter);
      case UNAVAILABLE -> fail(responses, Code.UNAVAILABLE, result, retryAfter);
    }
  }

  private static void fail(
      StreamObserver<ExportTraceServiceResponse> responses,
      Code code,
      IngestResult result,
      Duration retryDelay) {
    responses.onError(StatusProto.toStatusRuntimeException(
        OtlpResponses.status(code, result.message(), retryDelay)));
  }
}
