package dev.spanprof.api;

import dev.spanprof.analysis.span.Operation;
import dev.spanprof.analysis.trace.TraceProfile;
import io.micronaut.serde.annotation.Serdeable;

/**
 * One row of {@code GET /api/v1/traces}: what the list of recent traces shows and filters on.
 *
 * @param rootService the primary root span's service, empty without a root
 * @param rootOperation the primary root span's name, empty without a root
 * @param startNanos the earliest start of an activity span, epoch nanoseconds
 * @param completion why assembly stopped waiting: {@code timeout}, {@code evicted}, …
 * @param complete the trace's real root arrived and nothing of it was cut off (the
 *     {@code spanprof.trace.complete} attribute)
 */
@Serdeable
record TraceSummary(
    String traceId,
    String rootService,
    String rootOperation,
    long startNanos,
    long ttcNs,
    long ttxNs,
    long resourceTimeNs,
    double parallelism,
    long criticalPathNs,
    int spanCount,
    String completion,
    boolean complete) {

  static TraceSummary of(TraceProfile profile, String completion, boolean complete) {
    int root = profile.primaryRoot();
    Operation operation = root < 0 ? new Operation("", "")
        : profile.distinctOperations().get(profile.spans().get(root).operation());
    return new TraceSummary(profile.traceId().toHex(), operation.service(), operation.name(),
        profile.startNanos(), profile.ttcNs(), profile.ttxNs(), profile.resourceTimeNs(),
        profile.parallelism(), profile.criticalPathNs(), profile.spanCount(), completion,
        complete);
  }
}
