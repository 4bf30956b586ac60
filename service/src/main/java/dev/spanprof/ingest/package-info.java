/**
 * OTLP in, whatever the transport: what a request body becomes ({@link
 * dev.spanprof.ingest.TraceIngest}), the OTLP/JSON decoding, the one mapper that turns OTLP
 * messages into {@link dev.spanprof.span.SpanRecord}s, the one admission gate ({@link
 * dev.spanprof.ingest.Admission}: shutdown, the {@link dev.spanprof.ingest.MemoryGuard}, a full
 * buffer, forwarding queue or spool), and the spool written first ({@link
 * dev.spanprof.ingest.SpoolLoader}). The transports are {@code ingest.http} and {@code
 * ingest.grpc}, and {@code ingest.kafka} reads records from a topic. Protobuf types stop here.
 */
package dev.spanprof.ingest;
