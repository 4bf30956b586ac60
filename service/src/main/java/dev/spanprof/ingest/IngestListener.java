package dev.spanprof.ingest;

/**
 * What ingest reports about each request; the service binds it to Micrometer.
 *
 * <p>Every span of a decodable request is reported exactly once, as accepted or as refused with
 * a reason; requests that cannot be decoded (or arrive during shutdown) are reported as rejected
 * requests, since their spans cannot be counted.
 */
public interface IngestListener {

  /** Why spans of a decoded request were not taken; the {@code reason} label. */
  enum SpanRefusal {
    /** Bad trace, span or parent id. */
    INVALID("invalid"),
    /** The buffer was full and nothing could be completed early. */
    BUFFER_FULL("buffer_full"),
    /** The request alone has more spans than the buffer can hold. */
    TOO_LARGE("too_large"),
    /** The heap was above {@code spanprof.memory.limit-percentage} after collection. */
    MEMORY_LIMIT("memory_limit"),
    /** The spool on disk held {@code spanprof.export.spool.max-size}. */
    SPOOL_FULL("spool_full");

    private final String label;

    SpanRefusal(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  /** Why a whole request was turned away before its spans could be counted. */
  enum RequestRejection {
    MALFORMED("malformed"),
    TOO_LARGE("too_large"),
    UNSUPPORTED_MEDIA_TYPE("unsupported_media_type"),
    UNAVAILABLE("unavailable"),
    /** HTTP: the connection was closed, its request's headers not whole in time. */
    HEADER_TIMEOUT("header_timeout");

    private final String label;

    RequestRejection(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  void onAccepted(Transport transport, int spans);

  void onRefused(Transport transport, SpanRefusal reason, int spans);

  /** Accepted spans whose end is before their start (analysed as zero-length). */
  void onEndBeforeStart(Transport transport, int spans);

  void onRequestRejected(Transport transport, RequestRejection reason);
}
