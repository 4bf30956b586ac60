package dev.spanprof.export;

/** Sends one encoded {@code ExportTraceServiceRequest} to the next hop. */
interface OtlpSender extends AutoCloseable {

  SendResult send(byte[] request);

  @Override
  void close();
}
