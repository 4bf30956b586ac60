/**
 * Forwarding: every span to the next hop over OTLP (gRPC, HTTP protobuf or HTTP JSON), enriched
 * with spanprof's per-span and per-trace attributes, batched, queued within a bound that holds
 * the analysis back, and retried; a batch the next hop refuses for what it holds is split to the
 * spans at fault, which go once more repaired.
 */
package dev.spanprof.export;
