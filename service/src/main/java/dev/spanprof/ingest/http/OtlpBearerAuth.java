package dev.spanprof.ingest.http;

import com.google.rpc.Code;
import dev.spanprof.security.Access;
import dev.spanprof.security.AuthDecision;
import dev.spanprof.security.BearerTokens;
import dev.spanprof.security.HttpRefusals;
import dev.spanprof.security.RouteAccess;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpMethod;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;
import io.micronaut.web.router.Router;

/**
 * OTLP/HTTP needs a write token when {@code spanprof.auth.write-tokens-file} is set, on every
 * spelling of its path the router sends to the handler ({@link RouteAccess}): refused
 * before the body is read (so nothing of it is counted as received), with a
 * {@code google.rpc.Status} as OTLP answers errors, 401 and {@code WWW-Authenticate: Bearer}, or
 * 403 for a read token. Preflights (OPTIONS) carry no credentials: {@link OtlpCors} answers them.
 */
@ServerFilter(ServerFilter.MATCH_ALL_PATTERN)
final class OtlpBearerAuth {

  private final BearerTokens tokens;
  private final Router router;

  OtlpBearerAuth(BearerTokens tokens, Router router) {
    this.tokens = tokens;
    this.router = router;
  }

  @RequestFilter
  @Nullable
  HttpResponse<?> check(HttpRequest<?> request) {
    if (request.getMethod() == HttpMethod.OPTIONS
        || RouteAccess.required(request, router) != Access.WRITE) {
      return null;
    }
    AuthDecision decision = tokens.check(request, Access.WRITE);
    if (decision.allowed()) {
      return null;
    }
    boolean json = OtlpHttpResponses.mediaType(request.getHeaders().getContentType().orElse(null))
        .equals("application/json");
    MutableHttpResponse<byte[]> refusal = OtlpHttpResponses.error(HttpRefusals.status(decision),
        json, decision.outcome() == AuthDecision.Outcome.FORBIDDEN
            ? Code.PERMISSION_DENIED : Code.UNAUTHENTICATED, decision.message(), null);
    return HttpRefusals.challenged(refusal, decision);
  }
}
