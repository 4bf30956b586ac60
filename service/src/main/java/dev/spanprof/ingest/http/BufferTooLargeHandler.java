package dev.spanprof.ingest.http;

import dev.spanprof.ingest.IngestListener;
import dev.spanprof.config.IngestConfiguration;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.exceptions.BufferLengthExceededException;
import io.micronaut.http.server.exceptions.BufferLengthExceededHandler;
import io.micronaut.http.server.exceptions.ExceptionHandler;
import jakarta.inject.Singleton;

/**
 * 413 for a chunked body that outgrows the server's buffer while it arrives: the same OTLP
 * answer as {@link BodyTooLargeHandler} gives a body whose declared length is too large.
 */
@Produces
@Singleton
@Replaces(BufferLengthExceededHandler.class)
final class BufferTooLargeHandler
    implements ExceptionHandler<BufferLengthExceededException, HttpResponse<byte[]>> {

  private final IngestListener listener;
  private final int maxMessageSize;

  BufferTooLargeHandler(IngestListener listener, IngestConfiguration configuration) {
    this.listener = listener;
    this.maxMessageSize = configuration.getMaxMessageSize();
  }

  @Override
  public HttpResponse<byte[]> handle(HttpRequest request, BufferLengthExceededException e) {
    return BodyTooLargeHandler.refuse(request, listener, maxMessageSize);
  }
}
