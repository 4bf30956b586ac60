package dev.spanprof.security;

import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MutableHttpResponse;

/** How an HTTP refusal is answered: its status and, for a 401, the challenge. */
public final class HttpRefusals {

  private HttpRefusals() {}

  public static HttpStatus status(AuthDecision decision) {
    return decision.outcome() == AuthDecision.Outcome.FORBIDDEN
        ? HttpStatus.FORBIDDEN : HttpStatus.UNAUTHORIZED;
  }

  /** {@code refusal} with the challenge of a 401 ({@link #challenge}), when it is one. */
  public static <T> MutableHttpResponse<T> challenged(MutableHttpResponse<T> refusal,
      AuthDecision decision) {
    String challenge = challenge(decision);
    return challenge == null ? refusal : refusal.header(HttpHeaders.WWW_AUTHENTICATE, challenge);
  }

  /** The WWW-Authenticate value of a 401 (RFC 6750); null for a 403. */
  public static String challenge(AuthDecision decision) {
    if (decision.outcome() != AuthDecision.Outcome.UNAUTHENTICATED) {
      return null;
    }
    return "missing".equals(decision.reason()) ? "Bearer realm=\"spanprof\""
        : "Bearer realm=\"spanprof\", error=\"invalid_token\"";
  }
}
