package dev.spanprof.api;

import dev.spanprof.analysis.ranking.RankingSnapshot;
import dev.spanprof.api.RankingView.Call;
import dev.spanprof.api.RankingView.Edges;
import dev.spanprof.api.RankingView.Graph;
import dev.spanprof.api.RankingView.Neighbour;
import dev.spanprof.api.RankingView.RankingRow;
import dev.spanprof.api.TraceProfileController.ApiError;
import dev.spanprof.span.Operation;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.micronaut.http.annotation.QueryValue;

/**
 * {@code GET /api/v1/ranking?top=N&sort=involvement|critical_path|self_time} (over all traces, or
 * with {@code service=S&operation=O} over that root operation's traces, computed when asked) and
 * {@code GET /api/v1/ranking/edges?service=S&operation=O}, from the latest ranking (recomputed
 * every {@code spanprof.ranking.refresh}); and {@code GET /api/v1/ranking/graph}, optionally
 * with a root operation, the call graph: every row of the ranking and every edge between them.
 */
@Controller("/api/v1/ranking")
// Waits for the peers: off the event loop, which serves this replica's own share of the query.
@ExecuteOn(TaskExecutors.BLOCKING)
final class RankingController {

  private static final int DEFAULT_TOP = 50;

  private final Answers answers;

  RankingController(Answers answers) {
    this.answers = answers;
  }

  @Get(produces = MediaType.APPLICATION_JSON)
  HttpResponse<?> ranking(@QueryValue @Nullable Integer top, @QueryValue @Nullable String sort,
      @QueryValue @Nullable String service, @QueryValue @Nullable String operation,
      @QueryValue @Nullable String scope) {
    if ((service == null) != (operation == null)) {
      return badRequest("service and operation name a root operation together, e.g. "
          + "?service=checkout&operation=GET%20/cart; give both or neither");
    }
    int rows = top == null ? DEFAULT_TOP : top;
    if (rows < 1) {
      return badRequest("top must be at least 1, got " + rows);
    }
    RankingSnapshot.Sort order = sort == null ? RankingSnapshot.Sort.INVOLVEMENT
        : RankingSnapshot.Sort.fromLabel(sort);
    if (order == null) {
      return badRequest("sort must be involvement, critical_path or self_time, got '" + sort + "'");
    }
    Operation root = service == null ? null : new Operation(service, operation);
    Fleet.Answer<RankingSnapshot> answer = answers.ranking(root, Answers.local(scope));
    return answer.named(HttpResponse.ok(answer.value().top(rows, order).stream()
        .map(RankingRow::of)
        .toList()));
  }

  @Get(uri = "/edges", produces = MediaType.APPLICATION_JSON)
  HttpResponse<?> edges(@QueryValue @Nullable String service,
      @QueryValue @Nullable String operation, @QueryValue @Nullable String scope) {
    if (service == null || operation == null) {
      return badRequest("service and operation are both required, e.g. ?service=checkout&operation=GET%20/cart");
    }
    Operation target = new Operation(service, operation);
    Fleet.Answer<RankingSnapshot> answer = answers.ranking(null, Answers.local(scope));
    RankingSnapshot snapshot = answer.value();
    return answer.named(HttpResponse.ok(new Edges(service, operation,
        snapshot.callers(target).stream().map(edge -> Neighbour.of(edge.caller(), edge)).toList(),
        snapshot.callees(target).stream().map(edge -> Neighbour.of(edge.callee(), edge)).toList(),
        answer.missingPeers())));
  }

  /** The UI's call graph (/graph): the ranking's operations as nodes, its edges as calls. */
  @Get(uri = "/graph", produces = MediaType.APPLICATION_JSON)
  HttpResponse<?> graph(@QueryValue @Nullable String service,
      @QueryValue @Nullable String operation, @QueryValue @Nullable String scope) {
    if ((service == null) != (operation == null)) {
      return badRequest("service and operation name a root operation together, e.g. "
          + "?service=checkout&operation=GET%20/cart; give both or neither");
    }
    Operation root = service == null ? null : new Operation(service, operation);
    Fleet.Answer<RankingSnapshot> answer = answers.ranking(root, Answers.local(scope));
    RankingSnapshot snapshot = answer.value();
    return answer.named(HttpResponse.ok(new Graph(
        snapshot.top(snapshot.rows().size(), RankingSnapshot.Sort.INVOLVEMENT).stream()
            .map(RankingRow::of).toList(),
        snapshot.edges().stream().map(Call::of).toList(),
        answer.missingPeers())));
  }

  private static HttpResponse<ApiError> badRequest(String message) {
    return HttpResponse.status(HttpStatus.BAD_REQUEST).body(new ApiError(message));
  }
}
