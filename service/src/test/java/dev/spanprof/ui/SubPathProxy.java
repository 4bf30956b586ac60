package dev.spanprof.ui;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/**
 * A reverse proxy serving spanprof's HTTP port under a sub-path, as an ingress would: GET
 * {@code /spanprof/x} answers what GET {@code /x} does. It forwards GETs only, which is all the UI
 * sends.
 */
final class SubPathProxy implements AutoCloseable {

  static final String PREFIX = "/spanprof";

  private final HttpServer server;
  private final HttpClient client = HttpClient.newHttpClient();

  SubPathProxy(String target) throws IOException {
    server = HttpServer.create(new InetSocketAddress("localhost", 0), 0);
    server.createContext(PREFIX + "/", exchange -> {
      String path = exchange.getRequestURI().getRawPath().substring(PREFIX.length());
      String query = exchange.getRequestURI().getRawQuery();
      try {
        HttpResponse<byte[]> answer = client.send(HttpRequest.newBuilder(
            URI.create(target + path + (query == null ? "" : "?" + query))).build(),
            HttpResponse.BodyHandlers.ofByteArray());
        answer.headers().firstValue("content-type")
            .ifPresent(type -> exchange.getResponseHeaders().set("Content-Type", type));
        // A length of 0 would mean "chunked, length unknown": -1 is the empty body.
        exchange.sendResponseHeaders(answer.statusCode(),
            answer.body().length == 0 ? -1 : answer.body().length);
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(answer.body());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        exchange.sendResponseHeaders(502, -1);
      }
    });
    server.start();
  }

  /** The proxied UI's root, ending in a slash. */
  String root() {
    return "http://localhost:" + server.getAddress().getPort() + PREFIX + "/";
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
