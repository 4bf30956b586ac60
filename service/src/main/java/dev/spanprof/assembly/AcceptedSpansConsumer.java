package dev.spanprof.assembly;

import dev.spanprof.span.SpanRecord;
import java.util.List;

/** Sees the spans of every accepted request at once, before assembly (pass-through forwarding). */
public interface AcceptedSpansConsumer {

  void onAccepted(List<SpanRecord> spans);

  /**
   * Whether a request of {@code spans} can be taken now. While not (pass-through forwarding to a
   * next hop slower than the spans coming in), ingest refuses requests as full.
   */
  default boolean hasRoomFor(int spans) {
    return true;
  }

  /**
   * Whether {@link #hasRoomFor} may say no now. While it may, ingest counts each request's spans
   * (protobuf or OTLP/JSON) before decoding it, so that a request without room is refused
   * undecoded.
   */
  default boolean mayRefuse() {
    return false;
  }
}
