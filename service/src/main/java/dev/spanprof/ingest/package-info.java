/**
 * OTLP in: the gRPC and HTTP endpoints, the OTLP/JSON decoding, and the one mapper that turns OTLP
 * messages into {@link dev.spanprof.analysis.SpanRecord}s. Protobuf types stop here.
 */
package dev.spanprof.ingest;
