package dev.spanprof.ingest;

/**
 * A received OTLP/gRPC request body: {@code bytes[0, length)}, in an array that goes back to
 * {@link RequestBodies} once the request is mapped. The array may be longer than the body.
 */
final class ReceivedBody {

  private final RequestBodies bodies;
  private final byte[] bytes;
  private final int length;

  ReceivedBody(RequestBodies bodies, byte[] bytes, int length) {
    this.bodies = bodies;
    this.bytes = bytes;
    this.length = length;
  }

  byte[] bytes() {
    return bytes;
  }

  int length() {
    return length;
  }

  /** Gives the array back; nothing may read it afterwards. Call once. */
  void release() {
    bodies.give(bytes);
  }
}
