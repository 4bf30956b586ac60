package dev.spanprof.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.span.Operation;
import io.micronaut.serde.annotation.Serdeable;
import java.util.List;

/**
 * One row of {@code GET /api/v1/traces}: what the list of recent traces shows and filters on.
 *
 * @param rootService the primary root span's service, empty without a root
 * @param rootOperation the primary root span's name, empty without a root
 * @param startNanos the earliest start of an activity span, epoch nanoseconds
 * @param completion why assembly stopped waiting: {@code timeout}, {@code evicted}, …
 * @param complete the trace's real root arrived, no span's parent is missing, and nothing of it
 *     was cut off (the {@code spanprof.trace.complete} attribute)
 * @param errorCount spans with status ERROR
 * @param orphanCount spans whose parent never arrived
 * @param fragments the trace's other fragments kept (semantics.md §2), in the order analysed
 * @param arrivalNanos when its last span was received, epoch nanoseconds (semantics.md §7): what
 *     orders the newest first across replicas
 */
@Serdeable
@JsonInclude(JsonInclude.Include.ALWAYS)
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
    boolean complete,
    int errorCount,
    int orphanCount,
    List<Fragment> fragments,
    long arrivalNanos) {

  /** Another fragment of the trace: how many spans, and why its assembly ended. */
  @Serdeable
  record Fragment(int spanCount, String completion) {}

  static TraceSummary of(TraceProfile profile, String completion, boolean complete,
      List<RecentProfiles.Recent> others, long arrivalNanos) {
    int root = profile.primaryRoot();
    Operation operation = root < 0 ? new Operation("", "")
        : profile.distinctOperations().get(profile.spans().get(root).operation());
    return new TraceSummary(profile.traceId().toHex(), operation.service(), operation.name(),
        profile.startNanos(), profile.ttcNs(), profile.ttxNs(), profile.resourceTimeNs(),
        profile.parallelism(), profile.criticalPathNs(), profile.spanCount(), completion,
        complete, profile.errorCount(), profile.orphanCount(), others.stream()
            .map(other -> new Fragment(other.profile().spanCount(), other.completion()))
            .toList(), arrivalNanos);
  }
}
