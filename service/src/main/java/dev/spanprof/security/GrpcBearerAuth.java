package dev.spanprof.security;

import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import jakarta.inject.Singleton;

/**
 * The gRPC listener's bearer tokens: OTLP's TraceService needs a write token, spanprof's
 * ProfileService a read token (when their files are set); health checks need none. A refused
 * call ends at once with UNAUTHENTICATED or PERMISSION_DENIED and a message; its request is not
 * read, so nothing of it is counted as received.
 */
@Singleton
final class GrpcBearerAuth implements ServerInterceptor {

  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final String TRACE_SERVICE =
      "opentelemetry.proto.collector.trace.v1.TraceService";
  private static final String PROFILE_SERVICE = "spanprof.v1.ProfileService";

  private final BearerTokens tokens;

  GrpcBearerAuth(BearerTokens tokens) {
    this.tokens = tokens;
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
      ServerCallHandler<Q, R> next) {
    String service = call.getMethodDescriptor().getServiceName();
    Access access = TRACE_SERVICE.equals(service) ? Access.WRITE
        : PROFILE_SERVICE.equals(service) ? Access.READ : null;
    if (access == null) {
      return next.startCall(call, headers);
    }
    AuthDecision decision = tokens.check(headers.get(AUTHORIZATION),
        () -> ClientCertificates.subject(call), access, "grpc");
    if (decision.allowed()) {
      return next.startCall(call, headers);
    }
    Status status = decision.outcome() == AuthDecision.Outcome.FORBIDDEN
        ? Status.PERMISSION_DENIED : Status.UNAUTHENTICATED;
    call.close(status.withDescription(decision.message()), new Metadata());
    return new ServerCall.Listener<>() {};
  }
}
