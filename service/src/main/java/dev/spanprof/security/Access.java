package dev.spanprof.security;

/** What a request wants to do: each kind but {@link #OPEN} has its own set of tokens. */
public enum Access {
  /** Send spans: OTLP over gRPC and HTTP. */
  WRITE,
  /** Read profiles: the query API over HTTP and gRPC, and every HTTP route not marked otherwise. */
  READ,
  /** Scrape the management port's {@code /metrics}, which names services and operations. */
  METRICS,
  /** Nothing that needs a token: the UI's pages and assets, which carry no data. */
  OPEN
}
