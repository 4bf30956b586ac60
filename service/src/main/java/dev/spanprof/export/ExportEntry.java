package dev.spanprof.export;

import dev.spanprof.analysis.SpanRecord;
import dev.spanprof.analysis.SpanResource;
import dev.spanprof.analysis.SpanScope;

/**
 * One span ready to forward, grouped by the resource and scope it arrived with. Its encoded
 * {@code Span} message is the span's original bytes followed by {@code appended}, the enriched
 * attributes (empty when not enriched). The two are written one after the other into the export
 * request, so the original is never copied per span. The entry holds the span's bytes ({@link
 * dev.spanprof.analysis.Slab}) until it is sent or given up.
 */
record ExportEntry(SpanRecord span, byte[] appended) {

  static final byte[] NOTHING_APPENDED = new byte[0];

  SpanResource resource() {
    return span.resource();
  }

  SpanScope scope() {
    return span.scope();
  }

  /** The encoded {@code Span} message's size. */
  int spanBytes() {
    return span.encodedLength() + appended.length;
  }
}
