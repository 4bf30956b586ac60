package dev.spanprof.ingest;

/**
 * The transport-neutral answer to one export request; the endpoints turn it into a gRPC status or
 * an HTTP response.
 *
 * @param outcome what happened to the request as a whole
 * @param rejectedSpans spans refused one by one as invalid (with {@link Outcome#ACCEPTED})
 * @param message for the client: why it was refused, or warnings about accepted spans ("" if none)
 */
public record IngestResult(Outcome outcome, long rejectedSpans, String message) {

  public enum Outcome {
    /** The valid spans are buffered; invalid ones are reported as a partial success. */
    ACCEPTED,
    /** The body could not be decoded; nothing was taken. Not retryable. */
    MALFORMED,
    /** The request is larger than spanprof can ever take. Not retryable. */
    TOO_LARGE,
    /** The buffer is full; nothing was taken. Retry later. */
    FULL,
    /** spanprof is shutting down; nothing was taken. Retry elsewhere or later. */
    UNAVAILABLE
  }

  public static IngestResult refused(Outcome outcome, String message) {
    return new IngestResult(outcome, 0, message);
  }
}
