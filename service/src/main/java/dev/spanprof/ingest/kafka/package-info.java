/**
 * The Kafka ingest: a consumer group reading OTLP spans as the Collector's Kafka exporter writes
 * them, into the same admission, assembly, analysis and forwarding as OTLP requests. A
 * partition's offset is committed only past records whose spans are all analysed and forwarded;
 * on assignment, a window's records before it are read again to rebuild the windows.
 */
package dev.spanprof.ingest.kafka;
