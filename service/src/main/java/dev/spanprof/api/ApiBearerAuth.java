package dev.spanprof.api;

import dev.spanprof.api.TraceProfileController.ApiError;
import dev.spanprof.security.Access;
import dev.spanprof.security.AuthDecision;
import dev.spanprof.security.BearerTokens;
import dev.spanprof.security.ClientCertificates;
import dev.spanprof.security.HttpRefusals;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;

/**
 * The query API needs a read token when {@code spanprof.auth.read-tokens-file} is set: 401 with
 * {@code WWW-Authenticate: Bearer} without a valid one, 403 for a write token. The UI's pages
 * and assets hold no data and stay open; their requests to the API carry the token.
 */
@ServerFilter("/api/**")
final class ApiBearerAuth {

  private final BearerTokens tokens;

  ApiBearerAuth(BearerTokens tokens) {
    this.tokens = tokens;
  }

  @RequestFilter
  @Nullable
  HttpResponse<?> check(HttpRequest<?> request) {
    AuthDecision decision = tokens.check(request.getHeaders().get(HttpHeaders.AUTHORIZATION),
        () -> ClientCertificates.subject(request), Access.READ, "http");
    if (decision.allowed()) {
      return null;
    }
    MutableHttpResponse<ApiError> refusal =
        HttpResponse.status(HttpRefusals.status(decision)).body(new ApiError(decision.message()));
    String challenge = HttpRefusals.challenge(decision);
    return challenge == null ? refusal : refusal.header(HttpHeaders.WWW_AUTHENTICATE, challenge);
  }
}
