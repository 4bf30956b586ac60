package dev.spanprof.export;

import dev.spanprof.analysis.SpanResource;
import dev.spanprof.analysis.SpanScope;

/**
 * One span ready to forward: its encoded {@code Span} message (original bytes, attributes
 * appended when enriched) and the resource and scope it arrived with, to group it as it came.
 */
record ExportEntry(SpanResource resource, SpanScope scope, byte[] span) {}
