/**
 * The OTLP codecs ingest and export share: OTLP's JSON encoding, both ways
 * ({@link dev.spanprof.otlp.OtlpJson}); a reader of the protobuf wire format in place
 * ({@link dev.spanprof.otlp.WireReader}), which ingest walks requests with and export reads a
 * span's fields with; the repair of strings that are not UTF-8 ({@link
 * dev.spanprof.otlp.Utf8Strings}), which forwarding and the query API read kept spans with; and
 * the exception for a body that is not a decodable OTLP request.
 */
package dev.spanprof.otlp;
