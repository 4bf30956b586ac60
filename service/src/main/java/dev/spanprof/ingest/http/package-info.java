/**
 * OTLP over HTTP on port 4318: the endpoint, its answers in the request's encoding, body
 * decompression and size limits, limits on connections and on each request's headers, and the
 * OTLP path's access (write tokens, CORS). What it does with a body is the ingest's
 * ({@link dev.spanprof.ingest.TraceIngest}).
 */
package dev.spanprof.ingest.http;
