package dev.spanprof.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.spanprof.analysis.span.Ids;
import dev.spanprof.analysis.trace.TraceProfile;
import io.micronaut.serde.annotation.Serdeable;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The JSON form of a {@link TraceProfile}: the field names and order of the golden
 * {@code *.expected.json} files, ids in lower-case hex, states, resources and operations sorted
 * by name (operations by service, then name), spans by span id. Empty lists are written out
 * ({@code "pools": []}), not omitted as Micronaut Serde would by default.
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
    List<Pool> pools) {

  @Serdeable
  public record State(String state, long resourceNs, long inclusiveNs, long exclusiveNs) {}

  @Serdeable
  public record Resource(String resource, long busyNs) {}

  @Serdeable
  public record Operation(String service, String name, long resourceTimeNs) {}

  @Serdeable
  public record Span(
      String spanId, String resource, String state, long selfTimeNs, long criticalPathNs) {}

  @Serdeable
  public record Pool(
      String pool,
      double capacity,
      double availableNs,
      Map<String, Double> utilization,
      Map<String, Double> attributionNs) {}

  public static TraceProfileView of(TraceProfile profile) {
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
        profile.spans().stream()
            .map(s -> new Span(Ids.toHex(s.spanId()), s.resource(), s.state(), s.selfTimeNs(),
                s.criticalPathNs()))
            .sorted(Comparator.comparing(Span::spanId))
            .toList(),
        profile.pools().stream()
            .map(p -> new Pool(p.pool(), p.capacity(), p.availableNs(), p.utilization(),
                p.attributionNs()))
            .toList());
  }
}
