package dev.spanprof.otlp;

/** A request body that is not a decodable OTLP export request; the message says why. */
public final class InvalidOtlpException extends Exception {

  public InvalidOtlpException(String message, Throwable cause) {
    super(message, cause);
  }

  public InvalidOtlpException(String message) {
    super(message);
  }
}
