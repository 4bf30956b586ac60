package dev.spanprof.analysis.trace;

import dev.spanprof.analysis.internal.ScratchArrays;
import dev.spanprof.span.Operation;
import dev.spanprof.span.StateDefinition;
import java.util.ArrayList;
import java.util.List;

/**
 * What one thread's analyses reuse: each analysis clears it first. At most about 2 MB a thread
 * (the arrays, six name tables of up to 8 192 slots, the segments), whatever the largest trace.
 */
final class AnalysisScratch {
  final ScratchArrays arrays = new ScratchArrays();
  final Names<String> resources = new Names<>();
  final Names<String> pools = new Names<>();
  final Names<String> states = new Names<>();
  final Names<Operation> operations = new Names<>();
  final Names<String> categories = new Names<>();
  final Names<String> services = new Names<>();
  final List<StateDefinition> stateDefinitions = new ArrayList<>();
  final Segments segments = new Segments();
  final Segments stateRuns = new Segments();
  final Segments pathSegments = new Segments();
  /** Operations of recent spans, by their names' identity; kept from trace to trace. */
  private final Operation[] recentOperations = new Operation[64];

  /**
   * The operation of {@code service} and {@code name}: a recent span's when it had the very
   * same strings (interned at ingest), so that the spans of one operation do not each make one.
   */
  Operation operation(String service, String name) {
    int hash = 31 * service.hashCode() + name.hashCode();
    int slot = (hash ^ hash >>> 16) & (recentOperations.length - 1);
    Operation recent = recentOperations[slot];
    if (recent != null && recent.service() == service && recent.name() == name) {
      return recent;
    }
    Operation operation = new Operation(service, name);
    recentOperations[slot] = operation;
    return operation;
  }

  void clear() {
    arrays.reset();
    resources.clear();
    pools.clear();
    states.clear();
    operations.clear();
    categories.clear();
    services.clear();
    stateDefinitions.clear();
    segments.clear();
    stateRuns.clear();
    pathSegments.clear();
  }
}
