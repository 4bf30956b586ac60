package dev.spanprof.ingest;

/** A request body that is not a decodable OTLP export request; the message says why. */
final class InvalidOtlpException extends Exception {

  InvalidOtlpException(String message, Throwable cause) {
    super(message, cause);
  }

  InvalidOtlpException(String message) {
    super(message);
  }
}
