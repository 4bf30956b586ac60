package dev.spanprof.export;

/** Sends one {@code ExportTraceServiceRequest} to the next hop. */
interface OtlpSender extends AutoCloseable {

  SendResult send(ExportRequest request);

  @Override
  void close();
}
