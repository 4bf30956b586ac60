package dev.spanprof.export;

import dev.spanprof.analysis.Slab;
import dev.spanprof.analysis.SpanRecord;
import dev.spanprof.analysis.SpanResource;
import dev.spanprof.analysis.SpanScope;

/**
 * One span ready to forward, and the resource and scope it arrived with, to group it as it came.
 * Its encoded {@code Span} message is the original bytes, {@code span[spanOffset, spanOffset +
 * spanLength)}, followed by {@code appended}, the enriched attributes (empty when not enriched).
 * The two are written one after the other into the export request, so the original is never
 * copied per span. The entry holds the original bytes in {@code slab} (null when they have an
 * array of their own) until it is sent or given up. It keeps only these, not the span's record,
 * so that a span waiting to be forwarded does not keep its decoded attributes alive.
 */
record ExportEntry(SpanResource resource, SpanScope scope, byte[] span, int spanOffset,
    int spanLength, Slab slab, byte[] appended) {

  static final byte[] NOTHING_APPENDED = new byte[0];

  static ExportEntry of(SpanRecord span, byte[] appended) {
    return new ExportEntry(span.resource(), span.scope(), span.encodedArray(),
        span.encodedOffset(), span.encodedLength(), span.slab(), appended);
  }

  /** The encoded {@code Span} message's size. */
  int spanBytes() {
    return spanLength + appended.length;
  }
}
