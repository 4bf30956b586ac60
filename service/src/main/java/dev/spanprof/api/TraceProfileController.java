package dev.spanprof.api;

import dev.spanprof.analysis.span.TraceId;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.serde.annotation.Serdeable;

/** {@code GET /api/v1/traces/{traceId}}: the profile of a recently analysed trace. */
@Controller("/api/v1/traces")
final class TraceProfileController {

  private final RecentProfiles profiles;

  TraceProfileController(RecentProfiles profiles) {
    this.profiles = profiles;
  }

  @Get(uri = "/{traceId}", produces = MediaType.APPLICATION_JSON)
  HttpResponse<?> get(@PathVariable String traceId) {
    TraceId id;
    try {
      id = TraceId.fromHex(traceId);
    } catch (IllegalArgumentException e) {
      return HttpResponse.status(HttpStatus.BAD_REQUEST).body(new ApiError(e.getMessage()));
    }
    return profiles.get(id)
        .<HttpResponse<?>>map(profile -> HttpResponse.ok(TraceProfileView.of(profile)))
        .orElseGet(() -> HttpResponse.status(HttpStatus.NOT_FOUND).body(new ApiError(
            "no recently analysed trace " + id.toHex() + "; traces appear after they complete "
                + "(spanprof.assembly.trace-timeout) and the most recent "
                + "spanprof.query.recent-traces are kept")));
  }

  /** The JSON error body of the query API. */
  @Serdeable
  record ApiError(String error) {}
}
