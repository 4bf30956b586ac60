package dev.spanprof.security;

import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import jakarta.inject.Singleton;

/**
 * The gRPC listener's bearer tokens: OTLP's TraceService needs a write token, health checks none,
 * and every other service a read token (when their files are set): spanprof's ProfileService,
 * and any service added later until it says otherwise (default deny, as {@link RouteAccess} on
 * HTTP). A refused call ends at once with UNAUTHENTICATED or PERMISSION_DENIED and a message; its
 * request is not read, so nothing of it is counted as received.
 */
@Singleton
final class GrpcBearerAuth implements ServerInterceptor {

  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final String TRACE_SERVICE =
      "opentelemetry.proto.collector.trace.v1.TraceService";
  private static final String HEALTH_SERVICE = "grpc.health.v1.Health";

  private final BearerTokens tokens;

  GrpcBearerAuth(BearerTokens tokens) {
    this.tokens = tokens;
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
      ServerCallHandler<Q, R> next) {
    String service = call.getMethodDescriptor().getServiceName();
    Access access = TRACE_SERVICE.equals(service) ? Access.WRITE
        : HEALTH_SERVICE.equals(service) ? Access.OPEN : Access.READ;
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
