package dev.spanprof.security;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;
import io.micronaut.web.router.Router;
import java.util.Map;

/**
 * Every HTTP route that needs a read token ({@link RouteAccess}: the query API, and any route not
 * marked otherwise) is refused without one when {@code spanprof.auth.read-tokens-file} is set:
 * 401 with {@code WWW-Authenticate: Bearer}, or 403 for a write token, with a JSON message. The
 * UI's pages and assets hold no data and stay open; their requests to the API carry the token.
 */
@ServerFilter(ServerFilter.MATCH_ALL_PATTERN)
final class HttpReadAuth {

  private final BearerTokens tokens;
  private final Router router;

  HttpReadAuth(BearerTokens tokens, Router router) {
    this.tokens = tokens;
    this.router = router;
  }

  @RequestFilter
  @Nullable
  HttpResponse<?> check(HttpRequest<?> request) {
    if (RouteAccess.required(request, router) != Access.READ) {
      return null;
    }
    AuthDecision decision = tokens.check(request, Access.READ);
    return decision.allowed() ? null : HttpRefusals.challenged(HttpResponse
        .status(HttpRefusals.status(decision)).body(Map.of("error", decision.message())), decision);
  }
}
