package dev.spanprof.ingest;

import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.store.SpanStore;
import java.util.List;

/**
 * One export request after mapping.
 *
 * @param spans the valid spans, in request order, each with a hold on its bytes for whoever
 *     takes it (the assembly), released if nobody does
 * @param rejectedSpans spans refused as invalid (bad ids); never buffered
 * @param endBeforeStartSpans valid spans whose end is before their start: kept, analysed as
 *     zero-length (semantics.md §1), reported to the client as a warning
 * @param problems what was wrong, for the client ("" when nothing)
 * @param writer what placed the spans' bytes; closed once the spans are handed on, so that their
 *     slabs cannot be written over in between
 */
record MappedRequest(List<SpanRecord> spans, int rejectedSpans, int endBeforeStartSpans,
    String problems, SpanStore.Writer writer) {}
