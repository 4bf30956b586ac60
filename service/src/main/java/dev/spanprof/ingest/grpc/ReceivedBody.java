package dev.spanprof.ingest.grpc;

import dev.spanprof.ingest.IngestListener.RequestRejection;

/**
 * A received OTLP/gRPC request body: {@code bytes[0, length)}, in an array that goes back to
 * {@link RequestBodies} once the request is mapped. The array may be longer than the body. Or,
 * for a compressed request that could not be read whole, why it is refused.
 */
final class ReceivedBody {

  private static final byte[] NONE = new byte[0];

  private final RequestBodies bodies;
  private final byte[] bytes;
  private final int length;
  private final RequestRejection refusal;
  private final String refusalMessage;

  ReceivedBody(RequestBodies bodies, byte[] bytes, int length) {
    this(bodies, bytes, length, null, null);
  }

  private ReceivedBody(
      RequestBodies bodies, byte[] bytes, int length, RequestRejection refusal, String refusalMessage) {
    this.bodies = bodies;
    this.bytes = bytes;
    this.length = length;
    this.refusal = refusal;
    this.refusalMessage = refusalMessage;
  }

  /** A request refused while it was read: too large once decompressed, or not decompressible. */
  static ReceivedBody refused(RequestRejection refusal, String message) {
    return new ReceivedBody(null, NONE, 0, refusal, message);
  }

  /** Why the request is refused; null when it was read whole. */
  RequestRejection refusal() {
    return refusal;
  }

  String refusalMessage() {
    return refusalMessage;
  }

  byte[] bytes() {
    return bytes;
  }

  int length() {
    return length;
  }

  /** Gives the array back; nothing may read it afterwards. Call once. */
  void release() {
    if (bodies != null) {
      bodies.give(bytes);
    }
  }
}
