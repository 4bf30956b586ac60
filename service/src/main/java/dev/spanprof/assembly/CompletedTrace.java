package dev.spanprof.assembly;

import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.TraceId;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * The spans of one trace, or of one fragment of it, as assembly completed them.
 *
 * @param traceId the trace id every span carries
 * @param spans the spans in arrival order; the record takes the list over and exposes it
 *     unmodifiable (assembly builds each list once and never touches it after completion)
 * @param completion why assembly stopped waiting for more
 * @param fragment true when this is not the first part of its trace that was completed: its
 *     spans arrived after an earlier part had been handed on (late spans, or spans beyond the
 *     per-trace limit)
 * @param arrivalEpochNanos when its last span was received, on the wall clock in nanoseconds
 *     since the epoch: the slice of every window it is counted in (semantics.md §7)
 */
public record CompletedTrace(TraceId traceId, List<SpanRecord> spans, Completion completion,
    boolean fragment, long arrivalEpochNanos) {

  public CompletedTrace {
    Objects.requireNonNull(traceId, "traceId");
    Objects.requireNonNull(completion, "completion");
    spans = Collections.unmodifiableList(Objects.requireNonNull(spans, "spans"));
  }

  public int spanCount() {
    return spans.size();
  }

  /**
   * Whether the trace is whole as far as spanprof can tell: its primary root is a real root (no
   * parent id), no span's parent is missing ({@code orphanCount}, semantics.md §2), and it is
   * neither a fragment nor cut short by eviction or the span limit.
   */
  public boolean isComplete(SpanRecord primaryRoot, int orphanCount) {
    return primaryRoot.parentSpanId() == 0
        && orphanCount == 0
        && !fragment
        && completion != Completion.EVICTED
        && completion != Completion.SPAN_LIMIT;
  }
}
