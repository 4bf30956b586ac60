package dev.spanprof.export;

/** Sends one {@code ExportTraceServiceRequest} to the next hop. */
interface OtlpSender extends AutoCloseable {

  SendResult send(ExportRequest request);

  /**
   * Before a retry: connect afresh rather than after the transport's own reconnect backoff, which
   * grows to minutes while the next hop is down and would hold forwarding back after it returns.
   */
  default void reconnectNow() {}

  @Override
  void close();
}
