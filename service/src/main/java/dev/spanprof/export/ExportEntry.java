package dev.spanprof.export;

import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.SpanResource;
import dev.spanprof.span.SpanOrigin;
import dev.spanprof.span.SpanScope;
import dev.spanprof.span.store.Slab;
import java.util.List;

/**
 * One span ready to forward, and the resource and scope it arrived with, to group it as it came.
 * Its encoded {@code Span} message is the original bytes, {@code span[spanOffset, spanOffset +
 * spanLength)}, followed by the enriched attributes, {@code appended[appendedOffset,
 * appendedOffset + appendedLength)} (empty when not enriched). The two are written one after the
 * other into the export request, so the original is never copied per span.
 *
 * <p>The entry holds each range in its slab ({@code slab}, {@code appendedSlab}; null for bytes
 * in an array of their own) until it is sent or given up, then {@link #release releases} them.
 * It keeps only these, not the span's record, so that a span waiting to be forwarded does not
 * keep its decoded attributes alive; and the span's {@link SpanOrigin}, told when it is released.
 */
record ExportEntry(SpanResource resource, SpanScope scope,
    byte[] span, int spanOffset, int spanLength, Slab slab,
    byte[] appended, int appendedOffset, int appendedLength, Slab appendedSlab,
    SpanOrigin origin) {

  private static final byte[] NOTHING = new byte[0];

  /**
   * The span as it came, holding nothing yet: the caller takes the holds on the original bytes
   * ({@code Slab.retain(entries, ExportEntry::slab)}).
   */
  static ExportEntry asReceived(SpanRecord span) {
    return enriched(span, NOTHING, 0, 0, null);
  }

  /**
   * The span with {@code appended} attributes, which the entry holds in {@code appendedSlab}
   * already; the caller takes the holds on the original bytes, as for {@link #asReceived}.
   */
  static ExportEntry enriched(SpanRecord span, byte[] appended, int appendedOffset,
      int appendedLength, Slab appendedSlab) {
    return new ExportEntry(span.resource(), span.scope(), span.encodedArray(),
        span.encodedOffset(), span.encodedLength(), span.slab(),
        appended, appendedOffset, appendedLength, appendedSlab, span.origin());
  }

  /** The encoded {@code Span} message's size. */
  int spanBytes() {
    return spanLength + appendedLength;
  }

  /**
   * Gives up every hold {@code entries} have: they were sent, or are given up; and tells each
   * span's origin its forwarding is done.
   */
  static void release(List<ExportEntry> entries) {
    Slab.release(entries, ExportEntry::slab);
    Slab.release(entries, ExportEntry::appendedSlab);
    for (ExportEntry entry : entries) {
      entry.origin().stepDone();
    }
  }
}
