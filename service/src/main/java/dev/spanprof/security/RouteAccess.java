package dev.spanprof.security;

import io.micronaut.http.HttpMethod;
import io.micronaut.http.HttpRequest;
import io.micronaut.web.router.RouteAttributes;
import io.micronaut.web.router.RouteInfo;
import io.micronaut.web.router.Router;
import java.util.Optional;

/**
 * The access an HTTP request needs, decided by the route the router matched rather than by the
 * path's spelling: {@code /v1/traces/}, {@code //v1/traces} or a percent-encoded path reach the
 * OTLP handler and so need what it needs. A route needs what its {@link Guarded} says, a read
 * token without it (default deny). A request that matches no route runs no handler (a static
 * asset, or a 404), so it needs nothing, except a CORS preflight: it is for the route a POST to
 * the same path would reach.
 */
public final class RouteAccess {

  private RouteAccess() {}

  public static Access required(HttpRequest<?> request, Router router) {
    Optional<RouteInfo<?>> route = RouteAttributes.getRouteInfo(request);
    if (route.isPresent()) {
      return of(route.get());
    }
    if (request.getMethod() == HttpMethod.OPTIONS) {
      return router.find(HttpMethod.POST, request.getPath(), request)
          .map(match -> of(match.getRouteInfo()))
          .filter(access -> access == Access.WRITE)
          .findFirst()
          .orElse(Access.OPEN);
    }
    return Access.OPEN;
  }

  private static Access of(RouteInfo<?> route) {
    return route.getAnnotationMetadata().enumValue(Guarded.class, Access.class)
        .orElse(Access.READ);
  }
}
