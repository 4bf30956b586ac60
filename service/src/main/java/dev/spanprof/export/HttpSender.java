package dev.spanprof.export;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import dev.spanprof.config.ExportConfiguration;
import dev.spanprof.config.ExportConfiguration.Compression;
import dev.spanprof.otlp.OtlpJson;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * OTLP/HTTP to the next hop, protobuf or JSON. Retryable as the OTLP specification says: 429,
 * 502, 503 and 504, honouring {@code Retry-After}; connection failures too.
 */
final class HttpSender implements OtlpSender {

  private static final Set<Integer> RETRYABLE = Set.of(429, 502, 503, 504);

  private final HttpClient client;
  private final URI uri;
  private final boolean json;
  private final Compression compression;
  private final int compressionLevel;
  private final Duration timeout;
  private final ExportConfiguration configuration;

  HttpSender(URI endpoint, boolean json, ExportConfiguration configuration) {
    String path = endpoint.getPath();
    this.uri = path == null || path.isEmpty() || path.equals("/") ? endpoint.resolve("/v1/traces") : endpoint;
    HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(configuration.getTimeout());
    if ("https".equalsIgnoreCase(uri.getScheme())) {
      builder.sslContext(Tls.context(configuration));
    }
    this.client = builder.build();
    this.json = json;
    this.compression = configuration.compressionValue();
    this.compressionLevel = configuration.compressionLevelValue();
    Compressors.requireNative(compression, compressionLevel);
    this.timeout = configuration.getTimeout();
    this.configuration = configuration;
  }

  @Override
  public SendResult send(ExportRequest request) {
    byte[] body;
    try {
      body = body(request);
    } catch (IOException e) {
      return SendResult.failed("encoding", "cannot encode the request: " + e.getMessage());
    }
    HttpRequest.Builder post = HttpRequest.newBuilder(uri)
        .timeout(timeout)
        .header("Content-Type", json ? "application/json" : "application/x-protobuf")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (compression != Compression.NONE) {
      post.header("Content-Encoding", compression.encoding());
    }
    configuration.getHeaders().forEach(post::header);
    HttpResponse<byte[]> response;
    try {
      response = client.send(post.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      String tlsProblem = Tls.handshakeProblem(e);
      return tlsProblem != null ? SendResult.failed("tls", tlsProblem)
          : SendResult.retry("unavailable", null, "cannot reach " + uri + ": " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return SendResult.retry("interrupted", null, "interrupted while sending");
    }
    int status = response.statusCode();
    if (status / 100 == 2) {
      ExportTraceServiceResponse answer = parse(response.body());
      return SendResult.sent(answer.getPartialSuccess().getRejectedSpans(),
          answer.getPartialSuccess().getErrorMessage());
    }
    String message = "HTTP " + status + ": " + new String(response.body(), StandardCharsets.UTF_8);
    if (RETRYABLE.contains(status)) {
      Duration retryAfter = response.headers().firstValue("Retry-After")
          .flatMap(HttpSender::seconds).orElse(null);
      return SendResult.retry("http_" + status, retryAfter, message);
    }
    return SendResult.failed("http_" + status, message);
  }

  private ExportTraceServiceResponse parse(byte[] body) {
    try {
      if (json) {
        ExportTraceServiceResponse.Builder answer = ExportTraceServiceResponse.newBuilder();
        JsonFormat.parser().ignoringUnknownFields()
            .merge(new String(body, StandardCharsets.UTF_8), answer);
        return answer.build();
      }
      return ExportTraceServiceResponse.parseFrom(body);
    } catch (InvalidProtocolBufferException e) {
      // A 2xx whose body is not a response still took the spans: count them as sent.
      return ExportTraceServiceResponse.getDefaultInstance();
    }
  }

  private static Optional<Duration> seconds(String retryAfter) {
    try {
      return Optional.of(Duration.ofSeconds(Long.parseLong(retryAfter.trim())));
    } catch (NumberFormatException httpDate) {
      return Optional.empty();
    }
  }

  /** The protobuf request is encoded straight into the compressor when there is one. */
  private byte[] body(ExportRequest request) throws IOException {
    if (json) {
      byte[] encoded = OtlpJson.encode(ExportTraceServiceRequest.parseFrom(request.toByteArray()));
      return compression == Compression.NONE
          ? encoded : compressed(encoded.length, out -> out.write(encoded));
    }
    return compression == Compression.NONE
        ? request.toByteArray() : compressed(request.size(), request::writeTo);
  }

  private byte[] compressed(int sizeBytes, Body body) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(sizeBytes / 4 + 64);
    try (OutputStream zip = Compressors.stream(compression, compressionLevel, out)) {
      body.writeTo(zip);
    }
    return out.toByteArray();
  }

  private interface Body {
    void writeTo(OutputStream out) throws IOException;
  }

  @Override
  public void close() {
    // Java 17's HttpClient has nothing to close: its connections and threads are released when
    // it is no longer referenced.
  }
}
