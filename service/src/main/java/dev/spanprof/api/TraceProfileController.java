package dev.spanprof.api;

import dev.spanprof.span.TraceId;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.serde.annotation.Serdeable;
import java.util.List;
import java.util.Optional;

/**
 * {@code GET /api/v1/traces}: the recent analysed traces, filtered and ordered; and
 * {@code GET /api/v1/traces/{traceId}}: the profile of one of them.
 */
@Controller("/api/v1/traces")
// Waits for the peers: off the event loop, which serves this replica's own share of the query.
@ExecuteOn(TaskExecutors.BLOCKING)
final class TraceProfileController {

  private final RecentProfiles profiles;
  private final Fleet fleet;
  private final Answers answers;

  TraceProfileController(RecentProfiles profiles, Fleet fleet, Answers answers) {
    this.profiles = profiles;
    this.fleet = fleet;
    this.answers = answers;
  }

  /** The filters and order are {@link TraceQuery#parse}'s, the attribute filters among them. */
  @Get(produces = MediaType.APPLICATION_JSON)
  HttpResponse<?> list(HttpRequest<?> request, @QueryValue @Nullable String scope) {
    TraceQuery query;
    try {
      query = TraceQuery.parse(TraceQuery.firstValues(request.getParameters()));
    } catch (IllegalArgumentException e) {
      return HttpResponse.status(HttpStatus.BAD_REQUEST).body(new ApiError(e.getMessage()));
    }
    Fleet.Answer<List<TraceSummary>> answer = answers.traces(query, Answers.local(scope));
    return answer.named(HttpResponse.ok(answer.value()));
  }

  @Get(uri = "/{traceId}", produces = MediaType.APPLICATION_JSON)
  HttpResponse<?> get(@PathVariable String traceId, @QueryValue @Nullable String scope) {
    TraceId id;
    try {
      id = TraceId.fromHex(traceId);
    } catch (IllegalArgumentException e) {
      return HttpResponse.status(HttpStatus.BAD_REQUEST).body(new ApiError(e.getMessage()));
    }
    if (fleet.answers(Answers.local(scope))) {
      // The profile as the replica that has it wrote it: a trace is whole on one.
      Fleet.Answer<Optional<byte[]>> answer = fleet.trace(id);
      return answer.value()
          .<HttpResponse<?>>map(json -> answer.named(
              HttpResponse.ok(json).contentType(MediaType.APPLICATION_JSON_TYPE)))
          .orElseGet(() -> answer.named(HttpResponse.status(HttpStatus.NOT_FOUND).body(
              new ApiError("no replica has recently analysed trace " + id.toHex()
                  + (answer.missingPeers().isEmpty() ? ""
                      : "; missing peers: " + answer.missingPeers())))));
    }
    return profiles.find(id)
        .<HttpResponse<?>>map(recent ->
            HttpResponse.ok(TraceProfileView.of(recent.profile(), recent.summary(),
                profiles.originals(recent))))
        .orElseGet(() -> HttpResponse.status(HttpStatus.NOT_FOUND).body(new ApiError(
            "no recently analysed trace " + id.toHex() + "; traces appear after they complete "
                + "(spanprof.assembly.trace-timeout) and the most recent "
                + "spanprof.query.recent-traces are kept")));
  }

  /** The JSON error body of the query API. */
  @Serdeable
  record ApiError(String error) {}
}
