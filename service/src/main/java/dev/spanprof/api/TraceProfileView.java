package dev.spanprof.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.spanprof.analysis.trace.PathTimes;
import dev.spanprof.analysis.trace.SpanSegments;
import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.analysis.trace.TraceProfile.SpanProfile;
import dev.spanprof.span.Ids;
import dev.spanprof.span.SpanKind;
import dev.spanprof.span.SpanStatus;
import io.micronaut.serde.annotation.Serdeable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * The JSON form of a {@link TraceProfile}: the field names and order of the golden
 * {@code *.expected.json} files, ids in lower-case hex, states, resources and operations sorted
 * by name (operations by service, then name), spans by span id. Empty lists are written out
 * ({@code "pools": []}), not omitted as Micronaut Serde would by default.
 *
 * <p>After the golden files' fields come those the UI's pictures need, each straight from the
 * analysis: the spans' names, times and tree parents, the resource lanes and the primary root's
 * critical path (as segments and by operation), errors and orphans (semantics.md §2), the other
 * fragments of its trace id, and the trace's row in the list of recent traces (null outside the
 * service). Last, while they are kept ({@code attributesKept}), what the application sent beside
 * the analysis's inputs: each span's attributes, events and links, and the OpenTelemetry
 * resources' attributes ({@code otelResources}, which a span's {@code otelResource} indexes).
 */
@Serdeable
@JsonInclude(JsonInclude.Include.ALWAYS)
public record TraceProfileView(
    String traceId,
    int spanCount,
    long spanTimeNs,
    long ttxNs,
    long ttcNs,
    long resourceTimeNs,
    double parallelism,
    long criticalPathNs,
    List<State> states,
    List<Resource> resources,
    List<Operation> operations,
    List<Span> spans,
    List<Pool> pools,
    long startNanos,
    List<Lane> lanes,
    List<PathSegment> criticalPathSegments,
    List<PathTime> criticalPathByOperation,
    int errorCount,
    int orphanCount,
    List<TraceSummary.Fragment> fragments,
    TraceSummary summary,
    boolean attributesKept,
    List<Map<String, Object>> otelResources) {

  @Serdeable
  public record State(String state, long resourceNs, long inclusiveNs, long exclusiveNs) {}

  @Serdeable
  public record Resource(String resource, long busyNs) {}

  @Serdeable
  public record Operation(String service, String name, long resourceTimeNs) {}

  /**
   * @param parentSpanId the parent in the analysed span tree: null for a root, a duplicate, an
   *     orphan or where a parent cycle was broken
   * @param orphan its parent id names no span of the trace: walked as a root
   * @param status {@code UNSET}, {@code OK} or {@code ERROR}
   * @param statusMessage the status message of an ERROR span, else {@code ""}
   */
  @Serdeable
  @JsonInclude(JsonInclude.Include.ALWAYS)
  public record Span(
      String spanId,
      String resource,
      String state,
      long selfTimeNs,
      long criticalPathNs,
      String name,
      String service,
      SpanKind kind,
      String parentSpanId,
      long startNanos,
      long endNanos,
      boolean onCriticalPath,
      boolean orphan,
      SpanStatus status,
      String statusMessage,
      Map<String, Object> attributes,
      List<Event> events,
      List<Link> links,
      int otelResource) {}

  /** A span event: an exception with its stack trace, a log line. */
  @Serdeable
  @JsonInclude(JsonInclude.Include.ALWAYS)
  public record Event(String name, long timeNanos, Map<String, Object> attributes) {}

  /** A link to a span of this or another trace. */
  @Serdeable
  @JsonInclude(JsonInclude.Include.ALWAYS)
  public record Link(String traceId, String spanId, Map<String, Object> attributes) {}

  /** Over [startNanos, endNanos) the resource's chosen span was spanId, in this state. */
  @Serdeable
  public record Lane(
      String resource, long startNanos, long endNanos, String state, String spanId) {}

  /** cp(o, T) of semantics.md §6: the critical-path time of an operation's spans. */
  @Serdeable
  public record PathTime(String service, String name, long criticalPathNs) {}

  /** Over [startNanos, endNanos) the critical path ran through spanId. */
  @Serdeable
  public record PathSegment(String spanId, long startNanos, long endNanos) {}

  @Serdeable
  public record Pool(
      String pool,
      double capacity,
      double availableNs,
      Map<String, Double> utilization,
      Map<String, Double> attributionNs) {}

  /** The view of a profile analysed outside the service: without its summary. */
  public static TraceProfileView of(TraceProfile profile) {
    return of(profile, null, null);
  }

  /** @param originals the trace's spans as received, or null when no longer kept */
  static TraceProfileView of(TraceProfile profile, TraceSummary summary,
      OriginalSpans originals) {
    List<SpanProfile> spans = profile.spans();
    boolean kept = originals != null && originals.spanCount() == spans.size();
    return new TraceProfileView(
        profile.traceId().toHex(),
        profile.spanCount(),
        profile.spanTimeNs(),
        profile.ttxNs(),
        profile.ttcNs(),
        profile.resourceTimeNs(),
        profile.parallelism(),
        profile.criticalPathNs(),
        profile.states().stream()
            .map(s -> new State(s.state(), s.resourceNs(), s.inclusiveNs(), s.exclusiveNs()))
            .sorted(Comparator.comparing(State::state))
            .toList(),
        profile.resources().stream().map(r -> new Resource(r.resource(), r.busyNs()))
            .sorted(Comparator.comparing(Resource::resource))
            .toList(),
        profile.operations().stream()
            .map(o -> new Operation(o.service(), o.name(), o.resourceTimeNs()))
            .sorted(Comparator.comparing(Operation::service).thenComparing(Operation::name))
            .toList(),
        IntStream.range(0, spans.size()).mapToObj(i -> span(profile, i, kept ? originals : null))
            .sorted(Comparator.comparing(Span::spanId))
            .toList(),
        profile.pools().stream()
            .map(p -> new Pool(p.pool(), p.capacity(), p.availableNs(), p.utilization(),
                p.attributionNs()))
            .toList(),
        profile.startNanos(),
        lanes(profile.lanes(), spans),
        path(profile.criticalPath(), spans),
        pathTimes(profile),
        profile.errorCount(),
        profile.orphanCount(),
        summary == null ? List.of() : summary.fragments(),
        summary,
        kept,
        kept ? IntStream.range(0, originals.resourceCount())
            .mapToObj(r -> OriginalSpans.json(originals.resource(r).getAttributesList()))
            .toList() : List.of());
  }

  private static List<Lane> lanes(SpanSegments lanes, List<SpanProfile> spans) {
    List<Lane> result = new ArrayList<>(lanes.size());
    for (int k = 0; k < lanes.size(); k++) {
      SpanProfile span = spans.get(lanes.span(k));
      result.add(new Lane(span.resource(), lanes.startNanos(k), lanes.endNanos(k), span.state(),
          Ids.toHex(span.spanId())));
    }
    return result;
  }

  private static List<PathSegment> path(SpanSegments path, List<SpanProfile> spans) {
    List<PathSegment> result = new ArrayList<>(path.size());
    for (int k = 0; k < path.size(); k++) {
      result.add(new PathSegment(Ids.toHex(spans.get(path.span(k)).spanId()),
          path.startNanos(k), path.endNanos(k)));
    }
    return result;
  }

  /** The primary root tree's critical path by operation, longest first. */
  private static List<PathTime> pathTimes(TraceProfile profile) {
    long[] byOperation = PathTimes.byOperation(profile);
    List<PathTime> result = new ArrayList<>();
    for (int o = 0; o < byOperation.length; o++) {
      if (byOperation[o] > 0) {
        dev.spanprof.span.Operation operation = profile.distinctOperations().get(o);
        result.add(new PathTime(operation.service(), operation.name(), byOperation[o]));
      }
    }
    result.sort(Comparator.comparingLong(PathTime::criticalPathNs).reversed());
    return result;
  }

  private static Span span(TraceProfile profile, int index, OriginalSpans originals) {
    SpanProfile s = profile.spans().get(index);
    dev.spanprof.span.Operation operation =
        profile.distinctOperations().get(s.operation());
    String parent = s.parentIndex() < 0 ? null
        : Ids.toHex(profile.spans().get(s.parentIndex()).spanId());
    Map<String, Object> attributes = Map.of();
    List<Event> events = List.of();
    List<Link> links = List.of();
    if (originals != null) {
      io.opentelemetry.proto.trace.v1.Span original = originals.span(index);
      attributes = OriginalSpans.json(original.getAttributesList());
      events = original.getEventsList().stream().map(event -> new Event(event.getName(),
          event.getTimeUnixNano(), OriginalSpans.json(event.getAttributesList()))).toList();
      links = original.getLinksList().stream().map(link -> new Link(
          HexFormat.of().formatHex(link.getTraceId().toByteArray()),
          HexFormat.of().formatHex(link.getSpanId().toByteArray()),
          OriginalSpans.json(link.getAttributesList()))).toList();
    }
    return new Span(Ids.toHex(s.spanId()), s.resource(), s.state(), s.selfTimeNs(),
        s.criticalPathNs(), operation.name(), operation.service(), s.kind(), parent,
        s.startNanos(), s.endNanos(), s.onCriticalPath(), s.orphan(), s.status(),
        s.statusMessage(), attributes, events, links,
        originals == null ? -1 : originals.resourceOf(index));
  }
}
