package dev.spanprof.export;

import dev.spanprof.analysis.SpanResource;
import dev.spanprof.analysis.SpanScope;

/**
 * One span ready to forward, and the resource and scope it arrived with, to group it as it came.
 * Its encoded {@code Span} message is {@code span} followed by {@code appended}: the original
 * bytes as they are, then the enriched attributes (empty when not enriched). The two are written
 * one after the other into the export request, so the original is never copied per span.
 */
record ExportEntry(SpanResource resource, SpanScope scope, byte[] span, byte[] appended) {

  static final byte[] NOTHING_APPENDED = new byte[0];

  /** The encoded {@code Span} message's size. */
  int spanBytes() {
    return span.length + appended.length;
  }
}
