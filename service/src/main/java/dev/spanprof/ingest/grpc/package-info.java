/**
 * OTLP over gRPC on port 4317: the TraceService, the request bodies it takes as bytes, and the
 * Netty server's threads, connection and call limits. What it does with a body is the ingest's
 * ({@link dev.spanprof.ingest.TraceIngest}).
 */
package dev.spanprof.ingest.grpc;
