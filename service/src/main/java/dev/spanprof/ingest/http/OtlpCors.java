package dev.spanprof.ingest.http;

import dev.spanprof.config.CorsConfiguration;
import dev.spanprof.security.Access;
import dev.spanprof.security.RouteAccess;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.order.Ordered;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpMethod;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ResponseFilter;
import io.micronaut.http.annotation.ServerFilter;
import io.micronaut.web.router.Router;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * CORS on OTLP/HTTP for browser instrumentation: a preflight from an allowed origin is answered
 * 204 with the methods, headers and max age it may use; from any other, 403 with a message. An
 * allowed origin's POST gets {@code Access-Control-Allow-Origin} on its answer, refusals
 * included, so the page can read them; a POST from any other origin is refused, as a "simple"
 * request needs no preflight. With {@code *} allowed the answer is {@code *}, never the
 * request's origin echoed. It covers every spelling of the path the router sends to the OTLP
 * handler ({@link RouteAccess}); answers that depend on the origin say so ({@code Vary}). (This replaces, for this path, Micronaut's refusal of every other
 * origin on a localhost-bound server, which application.yml turns off.) Runs before the
 * bearer-token check: a preflight carries no credentials.
 */
@ServerFilter(ServerFilter.MATCH_ALL_PATTERN)
final class OtlpCors implements Ordered {

  /** Always allowed: what the OTLP/HTTP exporters send. */
  private static final List<String> BASE_HEADERS =
      List.of("Content-Type", "Content-Encoding", "Authorization");

  private final Set<String> origins;
  private final boolean anyOrigin;
  private final String allowedHeaders;
  private final Set<String> allowedHeaderNames;
  private final String maxAgeSeconds;
  private final Router router;

  OtlpCors(CorsConfiguration configuration, Router router) {
    this.router = router;
    this.origins = Set.copyOf(configuration.getAllowedOrigins());
    this.anyOrigin = origins.contains("*");
    List<String> headers = new ArrayList<>(BASE_HEADERS);
    headers.addAll(configuration.getAllowedHeaders());
    this.allowedHeaders = String.join(", ", headers);
    this.allowedHeaderNames = Set.copyOf(headers.stream()
        .map(header -> header.toLowerCase(Locale.ROOT)).toList());
    this.maxAgeSeconds = Long.toString(configuration.getMaxAge().toSeconds());
  }

  @Override
  public int getOrder() {
    return HIGHEST_PRECEDENCE;
  }

  @RequestFilter
  @Nullable
  HttpResponse<?> preflight(HttpRequest<?> request) {
    String origin = request.getHeaders().get(HttpHeaders.ORIGIN);
    if (origin == null || RouteAccess.required(request, router) != Access.WRITE) {
      return null;
    }
    if (request.getMethod() != HttpMethod.OPTIONS) {
      return allowed(origin) ? null : refuse("origin " + origin + " may not send spans here "
          + "(spanprof.ingest.cors.allowed-origins)");
    }
    String method = request.getHeaders().get(HttpHeaders.ACCESS_CONTROL_REQUEST_METHOD);
    if (!allowed(origin)) {
      return refuse("origin " + origin + " may not send spans here "
          + "(spanprof.ingest.cors.allowed-origins)");
    }
    if (method != null && !method.equalsIgnoreCase("POST")) {
      return refuse("only POST is allowed, not " + method);
    }
    String asked = request.getHeaders().get(HttpHeaders.ACCESS_CONTROL_REQUEST_HEADERS);
    if (asked != null) {
      for (String header : asked.split(",")) {
        String name = header.strip().toLowerCase(Locale.ROOT);
        if (!name.isEmpty() && !allowedHeaderNames.contains(name)) {
          return refuse("header " + header.strip() + " is not allowed "
              + "(spanprof.ingest.cors.allowed-headers)");
        }
      }
    }
    return HttpResponse.noContent()
        .header(HttpHeaders.ACCESS_CONTROL_ALLOW_ORIGIN, allowOriginValue(origin))
        .header(HttpHeaders.ACCESS_CONTROL_ALLOW_METHODS, "POST")
        .header(HttpHeaders.ACCESS_CONTROL_ALLOW_HEADERS, allowedHeaders)
        .header(HttpHeaders.ACCESS_CONTROL_MAX_AGE, maxAgeSeconds)
        .header(HttpHeaders.VARY, "Origin");
  }

  @ResponseFilter
  void allowOrigin(HttpRequest<?> request, MutableHttpResponse<?> response) {
    String origin = request.getHeaders().get(HttpHeaders.ORIGIN);
    if (origin != null && request.getMethod() != HttpMethod.OPTIONS && allowed(origin)
        && RouteAccess.required(request, router) == Access.WRITE) {
      response.header(HttpHeaders.ACCESS_CONTROL_ALLOW_ORIGIN, allowOriginValue(origin))
          .header(HttpHeaders.VARY, "Origin");
    }
  }

  /** {@code *} when every origin is allowed: a browser then shares no credentials with it. */
  private String allowOriginValue(String origin) {
    return anyOrigin ? "*" : origin;
  }

  private boolean allowed(String origin) {
    return anyOrigin || origins.contains(origin);
  }

  private static HttpResponse<String> refuse(String message) {
    return HttpResponse.status(HttpStatus.FORBIDDEN).contentType(MediaType.TEXT_PLAIN_TYPE)
        .header(HttpHeaders.VARY, "Origin").body(message);
  }
}
