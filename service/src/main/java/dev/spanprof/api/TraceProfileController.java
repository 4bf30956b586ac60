package dev.spanprof.api;

import dev.spanprof.span.TraceId;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.serde.annotation.Serdeable;

/**
 * {@code GET /api/v1/traces}: the recent analysed traces, filtered and ordered; and
 * {@code GET /api/v1/traces/{traceId}}: the profile of one of them.
 */
@Controller("/api/v1/traces")
final class TraceProfileController {

  private final RecentProfiles profiles;

  TraceProfileController(RecentProfiles profiles) {
    this.profiles = profiles;
  }

  @Get(produces = MediaType.APPLICATION_JSON)
  HttpResponse<?> list(@QueryValue @Nullable String service,
      @QueryValue @Nullable String operation, @QueryValue @Nullable String containsService,
      @QueryValue @Nullable String containsOperation, @QueryValue @Nullable String minTtcNs,
      @QueryValue @Nullable String maxTtcNs, @QueryValue @Nullable String minParallelism,
      @QueryValue @Nullable String maxParallelism, @QueryValue @Nullable String completion,
      @QueryValue @Nullable String error, @QueryValue @Nullable String order,
      @QueryValue @Nullable String limit) {
    TraceQuery query;
    try {
      query = TraceQuery.parse(service, operation, containsService, containsOperation, minTtcNs,
          maxTtcNs, minParallelism, maxParallelism, completion, error, order, limit);
    } catch (IllegalArgumentException e) {
      return HttpResponse.status(HttpStatus.BAD_REQUEST).body(new ApiError(e.getMessage()));
    }
    return HttpResponse.ok(profiles.search(query));
  }

  @Get(uri = "/{traceId}", produces = MediaType.APPLICATION_JSON)
  HttpResponse<?> get(@PathVariable String traceId) {
    TraceId id;
    try {
      id = TraceId.fromHex(traceId);
    } catch (IllegalArgumentException e) {
      return HttpResponse.status(HttpStatus.BAD_REQUEST).body(new ApiError(e.getMessage()));
    }
    return profiles.find(id)
        .<HttpResponse<?>>map(recent ->
            HttpResponse.ok(TraceProfileView.of(recent.profile(), recent.summary())))
        .orElseGet(() -> HttpResponse.status(HttpStatus.NOT_FOUND).body(new ApiError(
            "no recently analysed trace " + id.toHex() + "; traces appear after they complete "
                + "(spanprof.assembly.trace-timeout) and the most recent "
                + "spanprof.query.recent-traces are kept")));
  }

  /** The JSON error body of the query API. */
  @Serdeable
  record ApiError(String error) {}
}
