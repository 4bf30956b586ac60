package dev.spanprof.ingest;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import com.google.rpc.Code;
import dev.spanprof.config.IngestConfiguration;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Consumes;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Header;
import io.micronaut.http.annotation.Post;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

/**
 * OTLP/HTTP {@code POST /v1/traces} on the HTTP port (4318), protobuf or JSON, optionally gzip.
 *
 * <p>Responses follow the OTLP/HTTP specification: 200 with {@code ExportTraceServiceResponse}
 * (and {@code partial_success} for rejected spans), 400 for undecodable bodies, 413 for bodies or
 * requests too large, 415 for other content types, 429 when the buffer is full and 503 while
 * shutting down, both with {@code Retry-After}. Every body, error or not, is in the request's
 * encoding: protobuf for {@code application/x-protobuf}, JSON for {@code application/json}.
 */
@Controller
final class OtlpHttpController {

  static final String PROTOBUF = "application/x-protobuf";

  private static final JsonFormat.Printer JSON = JsonFormat.printer().omittingInsignificantWhitespace();

  private final TraceIngest ingest;
  private final IngestListener listener;
  private final Duration retryAfter;
  private final int maxMessageSize;

  OtlpHttpController(
      TraceIngest ingest, IngestListener listener, IngestConfiguration configuration) {
    this.ingest = ingest;
    this.listener = listener;
    this.retryAfter = configuration.getRetryAfter();
    this.maxMessageSize = configuration.getMaxMessageSize();
  }

  @Post("/v1/traces")
  @Consumes(MediaType.ALL)
  HttpResponse<byte[]> export(
      @Header(HttpHeaders.CONTENT_TYPE) @Nullable String contentType,
      @Header(HttpHeaders.CONTENT_ENCODING) @Nullable String contentEncoding,
      @Body @Nullable byte[] body) {
    boolean json;
    String type = mediaType(contentType);
    if (PROTOBUF.equals(type)) {
      json = false;
    } else if (MediaType.APPLICATION_JSON.equals(type)) {
      json = true;
    } else {
      listener.onRequestRejected(Transport.HTTP, IngestListener.RequestRejection.UNSUPPORTED_MEDIA_TYPE);
      return error(HttpStatus.UNSUPPORTED_MEDIA_TYPE, true, Code.INVALID_ARGUMENT,
          "Content-Type must be " + PROTOBUF + " or " + MediaType.APPLICATION_JSON + ", got '"
              + contentType + "'", null);
    }
    byte[] payload = body == null ? new byte[0] : body;
    if (isGzip(contentEncoding)) {
      try {
        payload = Gzip.decompress(payload, maxMessageSize);
      } catch (Gzip.TooLargeException e) {
        listener.onRequestRejected(Transport.HTTP, IngestListener.RequestRejection.TOO_LARGE);
        return error(HttpStatus.REQUEST_ENTITY_TOO_LARGE, json, Code.RESOURCE_EXHAUSTED,
            e.getMessage(), null);
      } catch (Gzip.InvalidException e) {
        listener.onRequestRejected(Transport.HTTP, IngestListener.RequestRejection.MALFORMED);
        return error(HttpStatus.BAD_REQUEST, json, Code.INVALID_ARGUMENT, e.getMessage(), null);
      }
    } else if (contentEncoding != null && !contentEncoding.isBlank()
        && !"identity".equalsIgnoreCase(contentEncoding.trim())) {
      listener.onRequestRejected(Transport.HTTP, IngestListener.RequestRejection.UNSUPPORTED_MEDIA_TYPE);
      return error(HttpStatus.UNSUPPORTED_MEDIA_TYPE, json, Code.INVALID_ARGUMENT,
          "Content-Encoding must be gzip or identity, got '" + contentEncoding + "'", null);
    }
    IngestResult result = json
        ? ingest.exportJson(payload, Transport.HTTP)
        : ingest.exportProtobuf(payload, Transport.HTTP);
    return switch (result.outcome()) {
      case ACCEPTED -> encode(HttpResponse.ok(), json, OtlpResponses.success(result));
      case MALFORMED -> error(HttpStatus.BAD_REQUEST, json, Code.INVALID_ARGUMENT,
          result.message(), null);
      case TOO_LARGE -> error(HttpStatus.REQUEST_ENTITY_TOO_LARGE, json, Code.RESOURCE_EXHAUSTED,
          result.message(), null);
      case FULL -> error(HttpStatus.TOO_MANY_REQUESTS, json, Code.RESOURCE_EXHAUSTED,
          result.message(), retryAfter);
      case UNAVAILABLE -> error(HttpStatus.SERVICE_UNAVAILABLE, json, Code.UNAVAILABLE,
          result.message(), retryAfter);
    };
  }

  /** The media type without parameters, lower case; "" when absent. */
  private static String mediaType(@Nullable String contentType) {
    if (contentType == null) {
      return "";
    }
    int semicolon = contentType.indexOf(';');
    String type = semicolon < 0 ? contentType : contentType.substring(0, semicolon);
    return type.trim().toLowerCase(Locale.ROOT);
  }

  private static boolean isGzip(@Nullable String contentEncoding) {
    return contentEncoding != null && "gzip".equalsIgnoreCase(contentEncoding.trim());
  }

  private static MutableHttpResponse<byte[]> error(
      HttpStatus httpStatus, boolean json, Code code, String message, Duration retryAfter) {
    MutableHttpResponse<byte[]> response = HttpResponse.status(httpStatus);
    if (retryAfter != null) {
      // Retry-After takes whole seconds; round up so the client never comes back too early.
      long seconds = Math.max(1, (retryAfter.toMillis() + 999) / 1000);
      response.header(HttpHeaders.RETRY_AFTER, Long.toString(seconds));
    }
    return encode(response, json, OtlpResponses.status(code, message, retryAfter));
  }

  static MutableHttpResponse<byte[]> encode(
      MutableHttpResponse<byte[]> response, boolean json, Message message) {
    if (!json) {
      return response.contentType(PROTOBUF).body(message.toByteArray());
    }
    try {
      return response.contentType(MediaType.APPLICATION_JSON_TYPE)
          .body(JSON.print(message).getBytes(StandardCharsets.UTF_8));
    } catch (InvalidProtocolBufferException e) {
      // Only messages with unresolvable Any types fail to print; ours contain none but RetryInfo.
      throw new IllegalStateException("cannot print " + message.getDescriptorForType(), e);
    }
  }
}
