package dev.spanprof.ingest;

import dev.spanprof.analysis.SpanRecord;
import java.util.List;

/**
 * One export request after mapping.
 *
 * @param spans the valid spans, in request order
 * @param rejectedSpans spans refused as invalid (bad ids); never buffered
 * @param endBeforeStartSpans valid spans whose end is before their start: kept, analysed as
 *     zero-length (semantics.md §1), reported to the client as a warning
 * @param problems what was wrong, for the client ("" when nothing)
 */
record MappedRequest(
    List<SpanRecord> spans, int rejectedSpans, int endBeforeStartSpans, String problems) {}
