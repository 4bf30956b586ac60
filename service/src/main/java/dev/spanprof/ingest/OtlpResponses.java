package dev.spanprof.ingest;

import com.google.protobuf.Any;
import com.google.protobuf.util.Durations;
import com.google.rpc.Code;
import com.google.rpc.RetryInfo;
import com.google.rpc.Status;
import io.opentelemetry.proto.collector.trace.v1.ExportTracePartialSuccess;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import java.time.Duration;

/** The OTLP response messages both transports send, built from an {@link IngestResult}. */
public final class OtlpResponses {

  private OtlpResponses() {}

  /**
   * The success response: empty when every span was taken without remark, else with
   * {@code partial_success} carrying the rejected count and the message (OTLP allows a message
   * with zero rejected spans as a warning).
   */
  public static ExportTraceServiceResponse success(IngestResult result) {
    if (result.rejectedSpans() == 0 && result.message().isEmpty()) {
      return ExportTraceServiceResponse.getDefaultInstance();
    }
    return ExportTraceServiceResponse.newBuilder()
        .setPartialSuccess(ExportTracePartialSuccess.newBuilder()
            .setRejectedSpans(result.rejectedSpans())
            .setErrorMessage(result.message()))
        .build();
  }

  /** A {@code google.rpc.Status}, with {@code RetryInfo} when a retry delay is given. */
  public static Status status(Code code, String message, Duration retryDelay) {
    Status.Builder status = Status.newBuilder().setCode(code.getNumber()).setMessage(message);
    if (retryDelay != null) {
      status.addDetails(Any.pack(RetryInfo.newBuilder()
          .setRetryDelay(Durations.fromNanos(retryDelay.toNanos()))
          .build()));
    }
    return status.build();
  }
}
