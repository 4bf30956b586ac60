package dev.spanprof.security;

/**
 * The answer to one request's credentials.
 *
 * @param reason why it was refused ({@code missing}, {@code invalid}, {@code wrong_kind}), the
 *     label of spanprof_auth_refused_total; null when allowed
 * @param message what the refusal tells the client; it never repeats the token
 */
public record AuthDecision(Outcome outcome, String reason, String message) {

  /** Allowed; refused for want of a valid token (401); refused a valid token of the other kind (403). */
  public enum Outcome { ALLOWED, UNAUTHENTICATED, FORBIDDEN }

  static final AuthDecision ALLOWED = new AuthDecision(Outcome.ALLOWED, null, null);

  public boolean allowed() {
    return outcome == Outcome.ALLOWED;
  }
}
