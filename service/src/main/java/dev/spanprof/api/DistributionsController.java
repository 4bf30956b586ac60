package dev.spanprof.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.spanprof.analysis.distribution.DistributionRegistry.Kind;
import dev.spanprof.api.TraceProfileController.ApiError;
import dev.spanprof.config.HistogramConfiguration;
import dev.spanprof.stages.DistributionService;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.serde.annotation.Serdeable;
import dev.spanprof.span.Operation;
import java.util.List;
import java.util.Optional;
import java.util.Locale;

/**
 * {@code GET /api/v1/distributions?service=S&operation=O&kind=duration|self_time|critical_path}:
 * one operation's distribution, cumulative and over the sliding window, raw and (for operations
 * with an expected interval) corrected for coordinated omission.
 */
@Controller("/api/v1/distributions")
// Waits for the peers: off the event loop, which serves this replica's own share of the query.
@ExecuteOn(TaskExecutors.BLOCKING)
final class DistributionsController {

  private final Answers answers;
  private final List<Double> quantiles;

  DistributionsController(Answers answers, HistogramConfiguration configuration) {
    this.answers = answers;
    this.quantiles = List.copyOf(configuration.getQuantiles());
  }

  @Get(produces = MediaType.APPLICATION_JSON)
  HttpResponse<?> distribution(@QueryValue @Nullable String service,
      @QueryValue @Nullable String operation, @QueryValue @Nullable String kind,
      @QueryValue @Nullable String scope) {
    if (service == null || operation == null) {
      return error(HttpStatus.BAD_REQUEST, "service and operation are both required");
    }
    Kind parsed = kind(kind == null ? "duration" : kind);
    if (parsed == null) {
      return error(HttpStatus.BAD_REQUEST,
          "kind must be duration, self_time or critical_path, got '" + kind + "'");
    }
    Fleet.Answer<Optional<DistributionService.Merged>> answer = answers.distribution(parsed,
        new Operation(service, operation), Answers.local(scope));
    return answer.value()
        .<HttpResponse<?>>map(merged -> answer.named(HttpResponse.ok(new Answer(service, operation,
            parsed.name().toLowerCase(Locale.ROOT),
            DistributionView.of(merged.cumulative(), quantiles),
            DistributionView.of(merged.window(), quantiles),
            merged.cumulativeCorrected() == null ? null
                : DistributionView.of(merged.cumulativeCorrected(), quantiles),
            merged.windowCorrected() == null ? null
                : DistributionView.of(merged.windowCorrected(), quantiles),
            answer.missingPeers()))))
        .orElseGet(() -> error(HttpStatus.NOT_FOUND,
            "no " + parsed.name().toLowerCase(Locale.ROOT) + " distribution for " + service + " / "
                + operation + " (series idle for spanprof.metrics.series-expiry are removed)"));
  }

  /** duration, self_time or critical_path; null for anything else. */
  static Kind kind(String label) {
    return switch (label) {
      case "duration" -> Kind.DURATION;
      case "self_time" -> Kind.SELF_TIME;
      case "critical_path" -> Kind.CRITICAL_PATH;
      default -> null;
    };
  }

  private static HttpResponse<ApiError> error(HttpStatus status, String message) {
    return HttpResponse.status(status).body(new ApiError(message));
  }

  @Serdeable
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record Answer(
      String service,
      String operation,
      String kind,
      DistributionView cumulative,
      DistributionView window,
      @Nullable DistributionView cumulativeCorrected,
      @Nullable DistributionView windowCorrected,
      List<String> missingPeers) {}
}
