package dev.spanprof.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.testing.Ports;
import io.micronaut.context.ApplicationContext;
import io.micronaut.http.HttpMethod;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import io.micronaut.web.router.Router;
import io.micronaut.web.router.UriRouteInfo;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Access control is default-deny whatever the spelling: every route the router knows, asked
 * without a token in every spelling an attacker would try (a trailing slash, doubled slashes,
 * a {@code ;} parameter, percent-encoding, another case, HEAD for GET), is answered 401 or 403
 * when it reaches a guarded handler, and never with the handler's data. The routes are read from
 * the router, so a route added later is walked too.
 */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RouteSpellingsTest implements TestPropertyProvider {

  private static final String ORIGIN = FrontDoorTest.ORIGIN;
  private static final String TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
  @TempDir static Path tokens;
  @Inject ApplicationContext context;
  @Inject Router router;

  @Override
  public Map<String, String> getProperties() {
    return FrontDoorTest.properties(tokens);
  }

  @Test
  void everyGuardedRoute_inEverySpelling_isRefusedWithoutAToken() {
    List<String> answered = new ArrayList<>();
    int guarded = 0;
    for (UriRouteInfo<?, ?> route : router.uriRoutes().toList()) {
      Access access = route.getAnnotationMetadata().enumValue(Guarded.class, Access.class)
          .orElse(Access.READ);
      if (access == Access.OPEN) {
        continue;
      }
      guarded++;
      String path = route.getUriMatchTemplate().toPathString()
          .replaceAll("\\{[^}]*}", TRACE_ID);
      List<String> methods = route.getHttpMethod() == HttpMethod.GET
          ? List.of("GET", "HEAD") : List.of(route.getHttpMethodName());
      assertThat(status(methods.get(0), path, null, null))
          .as("%s %s as declared", methods.get(0), path).isEqualTo(401);
      for (String method : methods) {
        for (String spelling : spellings(path)) {
          int status = status(method, spelling, null, null);
          answered.add(method + " " + spelling + " -> " + status);
          assertThat(status).as("%s %s (route %s)", method, spelling, path)
              .isIn(400, 401, 403, 404, 405);
        }
      }
    }
    assertThat(guarded).as("the query API and OTLP/HTTP").isGreaterThanOrEqualTo(7);
    assertThat(answered).contains("POST /v1/traces/ -> 401", "GET /api/v1/ranking/ -> 401");
  }

  @Test
  void otlpWithATrailingSlash_needsTheWriteTokenAndAnAllowedOrigin() {
    assertThat(status("POST", "/v1/traces/", "w-new", "https://evil.example")).isEqualTo(403);
    assertThat(status("POST", "/v1/traces/", "r1", ORIGIN)).isEqualTo(403);
    assertThat(status("POST", "/v1/traces/", "w-new", ORIGIN)).isEqualTo(200);
  }

  @Test
  void uiPages_stayOpen() {
    assertThat(status("GET", "/", null, null)).isEqualTo(200);
    assertThat(status("GET", "/traces/" + TRACE_ID, null, null)).isEqualTo(200);
    assertThat(status("GET", "/ui/page.html", null, null)).isEqualTo(200);
  }

  /** The spellings a router may send to the same handler, the declared one aside. */
  private static List<String> spellings(String path) {
    String last = path.substring(path.lastIndexOf('/') + 1);
    String encoded = last.isEmpty() ? path
        : path.substring(0, path.length() - last.length())
            + String.format("%%%02X", (int) last.charAt(0)) + last.substring(1);
    return List.of(path + "/", "/" + path, path.replace("/", "//"), path + ";x=1",
        path + "/;x=1", path + "?", path + "/.", encoded, path.toUpperCase(Locale.ROOT),
        path.replaceFirst("/", "/./"), path.replaceFirst("/([^/]+)/", "/$1/../$1/"));
  }

  /** Sends one request as bytes, so no client tidies the path; its status code. */
  private int status(String method, String path, String token, String origin) {
    String body = "{}";
    StringBuilder request = new StringBuilder()
        .append(method).append(' ').append(path).append(" HTTP/1.1\r\n")
        .append("Host: localhost\r\nConnection: close\r\n");
    if (token != null) {
      request.append("Authorization: Bearer ").append(token).append("\r\n");
    }
    if (origin != null) {
      request.append("Origin: ").append(origin).append("\r\n");
    }
    if (method.equals("POST")) {
      request.append("Content-Type: application/json\r\nContent-Length: ")
          .append(body.length()).append("\r\n\r\n").append(body);
    } else {
      request.append("\r\n");
    }
    try (Socket socket = new Socket("localhost", Ports.of(context).http())) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(request.toString().getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      String statusLine = new String(in.readNBytes(12), StandardCharsets.US_ASCII);
      return Integer.parseInt(statusLine.substring(9, 12));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
