/**
 * OTLP's JSON encoding, both ways ({@link dev.spanprof.otlp.OtlpJson}), and the exception for a
 * body that is not a decodable OTLP request: what ingest decodes and export encodes.
 */
package dev.spanprof.otlp;
