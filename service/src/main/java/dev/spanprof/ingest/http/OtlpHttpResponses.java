package dev.spanprof.ingest.http;

import dev.spanprof.ingest.OtlpResponses;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import com.google.rpc.Code;
import com.google.rpc.RetryInfo;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

/** OTLP/HTTP response bodies: a message in the request's encoding, protobuf or JSON. */
final class OtlpHttpResponses {

  static final String PROTOBUF = "application/x-protobuf";

  /**
   * Knows {@code RetryInfo}, the one {@code Any} a status carries: without it in the registry, a
   * JSON request's refusal with a retry delay failed to print and became a 500.
   */
  private static final JsonFormat.Printer JSON = JsonFormat.printer()
      .usingTypeRegistry(JsonFormat.TypeRegistry.newBuilder().add(RetryInfo.getDescriptor()).build())
      .omittingInsignificantWhitespace();

  private OtlpHttpResponses() {}

  /** The media type without parameters, lower case; "" when absent. */
  static String mediaType(@Nullable String contentType) {
    if (contentType == null) {
      return "";
    }
    int semicolon = contentType.indexOf(';');
    String type = semicolon < 0 ? contentType : contentType.substring(0, semicolon);
    return type.trim().toLowerCase(Locale.ROOT);
  }

  /** An error: {@code google.rpc.Status}, and {@code Retry-After} when a delay is given. */
  static MutableHttpResponse<byte[]> error(
      HttpStatus httpStatus, boolean json, Code code, String message,
      @Nullable Duration retryAfter) {
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
      // Only an Any of a type the registry lacks fails to print; the only Any we send is RetryInfo.
      throw new IllegalStateException("cannot print " + message.getDescriptorForType(), e);
    }
  }
}
