/**
 * Forwarding: every span to the next hop over OTLP (gRPC, HTTP protobuf or HTTP JSON), enriched
 * with spanprof's per-span and per-trace attributes, batched, queued within a bound and retried.
 */
package dev.spanprof.export;
