package dev.spanprof.security;

/** What a request wants to do: each kind has its own set of tokens. */
public enum Access {
  /** Send spans: OTLP over gRPC and HTTP. */
  WRITE,
  /** Read profiles: the query API over HTTP and gRPC. */
  READ
}
