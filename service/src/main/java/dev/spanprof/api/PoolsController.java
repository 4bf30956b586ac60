package dev.spanprof.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.spanprof.analysis.pool.PoolWindows.PoolWindow;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.micronaut.serde.annotation.Serdeable;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /api/v1/pools}: the recent final windows of every pool with a configured capacity
 * (window times in Unix epoch nanoseconds, like span times).
 */
@Controller("/api/v1/pools")
// Waits for the peers: off the event loop, which serves this replica's own share of the query.
@ExecuteOn(TaskExecutors.BLOCKING)
final class PoolsController {

  private final Answers answers;

  PoolsController(Answers answers) {
    this.answers = answers;
  }

  /**
   * With peers, the fleet's windows: utilization merged, the CPU attribution per replica in
   * {@code attributionByReplica} (semantics.md §7).
   */
  @Get(produces = MediaType.APPLICATION_JSON)
  HttpResponse<List<Pool>> pools(@QueryValue @Nullable String scope) {
    Fleet.Answer<Map<String, List<Window>>> answer = answers.pools(Answers.local(scope));
    return answer.named(HttpResponse.ok(answer.value().entrySet().stream()
        .map(entry -> new Pool(entry.getKey(), entry.getValue())).toList()));
  }

  @Serdeable
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record Pool(String pool, List<Window> windows) {}

  @Serdeable
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record Window(
      long startNanos,
      long endNanos,
      double capacity,
      double availableNs,
      Map<String, Double> utilization,
      Map<String, Double> attributionNs,
      Map<String, Map<String, Double>> attributionByReplica) {

    static Window of(PoolWindow window) {
      return new Window(window.startNanos(), window.endNanos(), window.figures().capacity(),
          window.figures().availableNs(), window.figures().utilization(),
          window.figures().attributionNs(), Map.of());
    }
  }
}
