/**
 * OTLP in: the gRPC and HTTP endpoints, the OTLP/JSON decoding, the one mapper that turns OTLP
 * messages into {@link dev.spanprof.analysis.span.SpanRecord}s, and what refuses at the front door
 * (a full buffer or forwarding queue, the {@link dev.spanprof.ingest.MemoryGuard}, a full spool)
 * or writes to the spool first ({@link dev.spanprof.ingest.SpoolLoader}). Protobuf types stop
 * here.
 */
package dev.spanprof.ingest;
