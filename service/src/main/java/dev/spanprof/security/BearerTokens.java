package dev.spanprof.security;

import dev.spanprof.config.AuthConfiguration;
import dev.spanprof.config.ManagementConfiguration;
import dev.spanprof.time.TimeSource;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import jakarta.inject.Singleton;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import javax.security.auth.x500.X500Principal;

/**
 * Whether a request's {@code Authorization: Bearer …} (HTTP) or {@code authorization} metadata
 * (gRPC) grants the access it needs: what the Collector's {@code bearertokenauth} extension and
 * the SDKs' {@code OTEL_EXPORTER_OTLP_HEADERS} send. Without a tokens file for a kind, that kind
 * is open. A token of the other kind is refused as forbidden (403 / PERMISSION_DENIED), so a
 * fleet's applications can export without being able to read. Tokens are compared by digest, in
 * constant time, every one of the set; they are never logged. With mutual TLS, a client
 * certificate whose subject is listed ({@code spanprof.auth.write-subjects}, {@code
 * read-subjects}) stands in for a token: the handshake has verified it against the client CA.
 * Refusals are counted in spanprof_auth_refused_total{transport, reason}; a tokens file that is
 * emptied, deleted or unreadable refuses every token of its kind ({@link TokenFile}). The
 * management port's {@code /metrics} has tokens of its own ({@code
 * spanprof.management.read-tokens-file}).
 */
@Singleton
public final class BearerTokens {

  private static final String SCHEME = "bearer ";

  @Nullable private final TokenFile write;
  @Nullable private final TokenFile read;
  @Nullable private final TokenFile metrics;
  private final Set<X500Principal> writeSubjects;
  private final Set<X500Principal> readSubjects;
  private final MeterRegistry registry;

  BearerTokens(AuthConfiguration configuration, ManagementConfiguration management,
      TimeSource time, MeterRegistry registry) {
    this.write = file(configuration.getWriteTokensFile(), time,
        AuthConfiguration.PREFIX + ".write-tokens-file");
    this.read = file(configuration.getReadTokensFile(), time,
        AuthConfiguration.PREFIX + ".read-tokens-file");
    this.metrics = file(management.getReadTokensFile(), time,
        ManagementConfiguration.PREFIX + ".read-tokens-file");
    this.writeSubjects = subjects(configuration.getWriteSubjects(), "write-subjects");
    this.readSubjects = subjects(configuration.getReadSubjects(), "read-subjects");
    this.registry = registry;
    gauge(write, "write");
    gauge(read, "read");
    gauge(metrics, "metrics");
  }

  /** spanprof_auth_tokens{kind}: 0 while a file fails closed, so an alert can see it. */
  private void gauge(@Nullable TokenFile file, String kind) {
    if (file != null) {
      Gauge.builder("spanprof.auth.tokens", file, tokens -> tokens.digests().size())
          .description("Tokens in force, by kind; 0 while the tokens file is empty, gone or "
              + "unreadable (every request of that kind refused)")
          .tag("kind", kind)
          .register(registry);
    }
  }

  /**
   * @param authorization the header or metadata value, null when absent
   * @param clientSubject the subject of the client certificate mutual TLS verified, or null;
   *     asked only where subjects are listed, so that without them no request looks for its
   *     connection's TLS session
   * @param transport {@code grpc} or {@code http}, for the refusal counter
   */
  public AuthDecision check(@Nullable String authorization,
      Supplier<X500Principal> clientSubject, Access access, String transport) {
    if (access == Access.OPEN) {
      return AuthDecision.ALLOWED;
    }
    TokenFile required = switch (access) {
      case WRITE -> write;
      case READ -> read;
      default -> metrics;
    };
    Set<X500Principal> subjects = switch (access) {
      case WRITE -> writeSubjects;
      case READ -> readSubjects;
      default -> Set.of();
    };
    if (required == null && subjects.isEmpty()) {
      return AuthDecision.ALLOWED;
    }
    if (!subjects.isEmpty()) {
      X500Principal subject = clientSubject.get();
      if (subject != null && subjects.contains(subject)) {
        return AuthDecision.ALLOWED;
      }
    }
    if (required == null) {
      return refuse(AuthDecision.Outcome.UNAUTHENTICATED, "missing", transport,
          "a client certificate of a listed subject is required to " + verb(access));
    }
    if (authorization == null || authorization.length() <= SCHEME.length()
        || !authorization.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
      return refuse(AuthDecision.Outcome.UNAUTHENTICATED, "missing", transport,
          "a bearer token is required to " + verb(access) + " (Authorization: Bearer <token>)");
    }
    byte[] digest = TokenFile.digest(authorization.substring(SCHEME.length()).strip());
    if (matches(digest, required.digests())) {
      return AuthDecision.ALLOWED;
    }
    TokenFile other = switch (access) {
      case WRITE -> read;
      case READ -> write;
      default -> null;
    };
    if (other != null && matches(digest, other.digests())) {
      return refuse(AuthDecision.Outcome.FORBIDDEN, "wrong_kind", transport,
          "this token may not " + verb(access));
    }
    return refuse(AuthDecision.Outcome.UNAUTHENTICATED, "invalid", transport,
        "the bearer token is not valid to " + verb(access));
  }

  /** {@link #check} for an HTTP request: its {@code Authorization} header and certificate. */
  public AuthDecision check(HttpRequest<?> request, Access access) {
    return check(request.getHeaders().get(HttpHeaders.AUTHORIZATION),
        () -> ClientCertificates.subject(request), access, "http");
  }

  /** Compares with every token of the set, so the time taken says nothing of which matched. */
  private static boolean matches(byte[] digest, List<byte[]> digests) {
    boolean found = false;
    for (byte[] candidate : digests) {
      found |= MessageDigest.isEqual(digest, candidate);
    }
    return found;
  }

  private AuthDecision refuse(AuthDecision.Outcome outcome, String reason, String transport,
      String message) {
    Counter.builder("spanprof.auth.refused")
        .description("Requests refused for their credentials, by transport and reason")
        .tag("transport", transport)
        .tag("reason", reason)
        .register(registry)
        .increment();
    return new AuthDecision(outcome, reason, message);
  }

  private static String verb(Access access) {
    return switch (access) {
      case WRITE -> "send spans";
      case READ -> "read profiles";
      default -> "read metrics";
    };
  }

  private static Set<X500Principal> subjects(List<String> names, String key) {
    try {
      return names.stream().map(X500Principal::new).collect(Collectors.toUnmodifiableSet());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          AuthConfiguration.PREFIX + "." + key + ": not a subject name: " + e.getMessage(), e);
    }
  }

  @Nullable
  private static TokenFile file(String path, TimeSource time, String key) {
    if (path.isBlank()) {
      return null;
    }
    try {
      return new TokenFile(Path.of(path), time);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(key + ": " + e.getMessage(), e);
    }
  }
}
