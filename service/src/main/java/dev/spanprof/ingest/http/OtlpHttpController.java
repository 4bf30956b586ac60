package dev.spanprof.ingest.http;

import dev.spanprof.ingest.IngestListener;
import dev.spanprof.ingest.IngestResult;
import dev.spanprof.ingest.OtlpResponses;
import dev.spanprof.ingest.TraceIngest;
import dev.spanprof.ingest.Transport;
import static dev.spanprof.ingest.http.OtlpHttpResponses.error;

import com.google.rpc.Code;
import dev.spanprof.config.IngestConfiguration;
import dev.spanprof.ingest.IngestListener.RequestRejection;
import dev.spanprof.security.Access;
import dev.spanprof.security.Guarded;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Consumes;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Header;
import io.micronaut.http.annotation.Post;
import java.time.Duration;
import java.util.Locale;

/**
 * OTLP/HTTP {@code POST /v1/traces} on the HTTP port (4318), protobuf or JSON, optionally gzip or
 * zstd.
 *
 * <p>Responses follow the OTLP/HTTP specification: 200 with {@code ExportTraceServiceResponse}
 * (and {@code partial_success} for rejected spans), 400 for undecodable bodies, 413 for bodies or
 * requests too large, 415 for other content types or encodings, 429 when the buffer is full and
 * 503 while shutting down, both with {@code Retry-After}. Every body, error or not, is in the
 * request's encoding: protobuf for {@code application/x-protobuf}, JSON for
 * {@code application/json} (and for requests whose content type is neither).
 */
@Controller
@Guarded(Access.WRITE)
final class OtlpHttpController {

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
    String type = OtlpHttpResponses.mediaType(contentType);
    boolean json = !OtlpHttpResponses.PROTOBUF.equals(type);
    if (json && !MediaType.APPLICATION_JSON.equals(type)) {
      listener.onRequestRejected(Transport.HTTP, RequestRejection.UNSUPPORTED_MEDIA_TYPE);
      return error(HttpStatus.UNSUPPORTED_MEDIA_TYPE, true, Code.INVALID_ARGUMENT,
          "Content-Type must be " + OtlpHttpResponses.PROTOBUF + " or "
              + MediaType.APPLICATION_JSON + ", got '" + contentType + "'", null);
    }
    byte[] payload = body == null ? new byte[0] : body;
    String encoding = contentEncoding == null ? "" : contentEncoding.trim().toLowerCase(Locale.ROOT);
    if (BodyDecompression.decompresses(encoding)) {
      try {
        payload = BodyDecompression.decompress(encoding, payload, maxMessageSize);
      } catch (BodyDecompression.TooLargeException e) {
        listener.onRequestRejected(Transport.HTTP, RequestRejection.TOO_LARGE);
        return error(HttpStatus.REQUEST_ENTITY_TOO_LARGE, json, Code.RESOURCE_EXHAUSTED,
            e.getMessage(), null);
      } catch (BodyDecompression.InvalidException e) {
        listener.onRequestRejected(Transport.HTTP, RequestRejection.MALFORMED);
        return error(HttpStatus.BAD_REQUEST, json, Code.INVALID_ARGUMENT, e.getMessage(), null);
      }
    } else if (!encoding.isEmpty() && !"identity".equals(encoding)) {
      listener.onRequestRejected(Transport.HTTP, RequestRejection.UNSUPPORTED_MEDIA_TYPE);
      return error(HttpStatus.UNSUPPORTED_MEDIA_TYPE, json, Code.INVALID_ARGUMENT,
          "Content-Encoding must be gzip, zstd or identity, got '" + contentEncoding + "'", null);
    }
    IngestResult result = json
        ? ingest.exportJson(payload, Transport.HTTP)
        : ingest.exportProtobuf(payload, Transport.HTTP);
    String message = result.message();
    return switch (result.outcome()) {
      case ACCEPTED ->
          OtlpHttpResponses.encode(HttpResponse.ok(), json, OtlpResponses.success(result));
      case MALFORMED ->
          error(HttpStatus.BAD_REQUEST, json, Code.INVALID_ARGUMENT, message, null);
      case TOO_LARGE ->
          error(HttpStatus.REQUEST_ENTITY_TOO_LARGE, json, Code.RESOURCE_EXHAUSTED, message, null);
      case FULL ->
          error(HttpStatus.TOO_MANY_REQUESTS, json, Code.RESOURCE_EXHAUSTED, message, retryAfter);
      case UNAVAILABLE ->
          error(HttpStatus.SERVICE_UNAVAILABLE, json, Code.UNAVAILABLE, message, retryAfter);
    };
  }
}
