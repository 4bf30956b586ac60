package dev.spanprof.testing;

import com.github.luben.zstd.ZstdInputStream;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.spanprof.ingest.OtlpTestSpans;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.zip.GZIPInputStream;

/**
 * The next hop for OTLP/HTTP forwarding tests: {@code POST /v1/traces}, protobuf or JSON,
 * optionally gzip or zstd; keeps each request and the content types and encodings it came with.
 */
public final class HttpOtlpReceiver extends RecordingReceiver {

  private final HttpServer server;
  private final List<String> contentTypes = new ArrayList<>();
  private final List<String> contentEncodings = new ArrayList<>();
  private volatile Function<ExportTraceServiceRequest, Answer> answer = request -> null;

  /** A non-default answer: a status, a Retry-After (or null) and a protobuf response body. */
  public record Answer(int status, String retryAfter, byte[] body) {}

  public HttpOtlpReceiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress("localhost", 0), 0);
    server.createContext("/v1/traces", this::handle);
    server.start();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      byte[] body = exchange.getRequestBody().readAllBytes();
      String contentEncoding = exchange.getRequestHeaders().getFirst("Content-Encoding");
      if ("gzip".equals(contentEncoding)) {
        try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(body))) {
          body = in.readAllBytes();
        }
      } else if ("zstd".equals(contentEncoding)) {
        try (InputStream in = new ZstdInputStream(new ByteArrayInputStream(body))) {
          body = in.readAllBytes();
        }
      }
      String contentType = exchange.getRequestHeaders().getFirst("Content-Type");
      boolean json = "application/json".equals(contentType);
      ExportTraceServiceRequest request = json
          ? OtlpTestSpans.decodeJson(body) : ExportTraceServiceRequest.parseFrom(body);
      Answer special = answer.apply(request);
      if (special != null && special.status() != 200) {
        if (special.retryAfter() != null) {
          exchange.getResponseHeaders().set("Retry-After", special.retryAfter());
        }
        exchange.sendResponseHeaders(special.status(), -1);
        return;
      }
      synchronized (this) {
        contentTypes.add(contentType);
        contentEncodings.add(contentEncoding == null ? "identity" : contentEncoding);
      }
      record(request);
      if (special != null) {
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.sendResponseHeaders(200, special.body().length);
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(special.body());
        }
        return;
      }
      byte[] answer = json ? "{}".getBytes(StandardCharsets.UTF_8) : new byte[0];
      exchange.getResponseHeaders().set("Content-Type", contentType);
      exchange.sendResponseHeaders(200, answer.length == 0 ? -1 : answer.length);
      if (answer.length > 0) {
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(answer);
        }
      }
    }
  }

  /** Decides each request's answer: null for an empty 200. */
  public void answerWith(Function<ExportTraceServiceRequest, Answer> decision) {
    this.answer = decision;
  }

  @Override
  public int port() {
    return server.getAddress().getPort();
  }

  public synchronized List<String> contentTypes() {
    return List.copyOf(contentTypes);
  }

  public synchronized List<String> contentEncodings() {
    return List.copyOf(contentEncodings);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
