package dev.spanprof.ingest.http;

import dev.spanprof.ingest.IngestListener;
import dev.spanprof.ingest.Transport;
import com.google.rpc.Code;
import dev.spanprof.config.IngestConfiguration;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.exceptions.ContentLengthExceededException;
import io.micronaut.http.server.exceptions.ContentLengthExceededHandler;
import io.micronaut.http.server.exceptions.ExceptionHandler;
import jakarta.inject.Singleton;

/**
 * 413 for bodies above {@code spanprof.ingest.max-message-size}, which the HTTP server refuses
 * before the controller runs: an OTLP {@code Status} in the request's encoding instead of
 * Micronaut's generic error, and counted as a rejected request.
 */
@Produces
@Singleton
@Replaces(ContentLengthExceededHandler.class)
final class BodyTooLargeHandler
    implements ExceptionHandler<ContentLengthExceededException, HttpResponse<byte[]>> {

  private final IngestListener listener;
  private final int maxMessageSize;

  BodyTooLargeHandler(IngestListener listener, IngestConfiguration configuration) {
    this.listener = listener;
    this.maxMessageSize = configuration.getMaxMessageSize();
  }

  @Override
  public HttpResponse<byte[]> handle(HttpRequest request, ContentLengthExceededException e) {
    return refuse(request, listener, maxMessageSize);
  }

  /** Counted, and a {@code Status} in the request's encoding. */
  static HttpResponse<byte[]> refuse(HttpRequest<?> request, IngestListener listener,
      int maxMessageSize) {
    listener.onRequestRejected(Transport.HTTP, IngestListener.RequestRejection.TOO_LARGE);
    boolean json = MediaType.APPLICATION_JSON.equals(
        OtlpHttpResponses.mediaType(request.getHeaders().get(HttpHeaders.CONTENT_TYPE)));
    return OtlpHttpResponses.error(HttpStatus.REQUEST_ENTITY_TOO_LARGE, json,
        Code.RESOURCE_EXHAUSTED,
        "the body is larger than spanprof.ingest.max-message-size (" + maxMessageSize
            + " bytes); split the export into smaller requests", null);
  }
}
