package dev.spanprof.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.spanprof.analysis.tail.TailBreakdown;
import dev.spanprof.analysis.tail.TailRoot;
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
import io.micronaut.serde.annotation.Serdeable;
import java.util.List;
import java.util.Optional;

/**
 * {@code GET /api/v1/tail}: the root operations with traces in the tail window; with
 * {@code service}, {@code operation} and optionally {@code quantile} (0.9), why that root's slow
 * traces are slow (semantics.md §6). Times in ns.
 */
@Controller("/api/v1/tail")
// Waits for the peers: off the event loop, which serves this replica's own share of the query.
@ExecuteOn(TaskExecutors.BLOCKING)
final class TailController {

  static final double DEFAULT_QUANTILE = 0.9;

  private final Answers answers;

  TailController(Answers answers) {
    this.answers = answers;
  }

  @Get(produces = MediaType.APPLICATION_JSON)
  HttpResponse<?> tail(@QueryValue @Nullable String service,
      @QueryValue @Nullable String operation, @QueryValue @Nullable String quantile,
      @QueryValue @Nullable String scope) {
    if (service == null && operation == null && quantile == null) {
      Fleet.Answer<List<TailRoot>> roots = answers.tailRoots(Answers.local(scope));
      return roots.named(HttpResponse.ok(roots.value().stream().map(RootView::of).toList()));
    }
    if (service == null || operation == null) {
      return error(HttpStatus.BAD_REQUEST, "service and operation (of a root) are both required, "
          + "e.g. ?service=checkout&operation=GET%20/cart&quantile=0.9");
    }
    double q;
    try {
      q = quantile == null ? DEFAULT_QUANTILE : Double.parseDouble(quantile);
    } catch (NumberFormatException e) {
      return error(HttpStatus.BAD_REQUEST, "quantile must be a number in (0, 1), got '"
          + quantile + "'");
    }
    if (!(q > 0 && q < 1)) {
      return error(HttpStatus.BAD_REQUEST, "quantile must be in (0, 1), got " + quantile);
    }
    Operation root = new Operation(service, operation);
    Fleet.Answer<Optional<TailBreakdown>> answer =
        answers.tailBreakdown(root, q, Answers.local(scope));
    return answer.value()
        .<HttpResponse<?>>map(breakdown -> answer.named(
            HttpResponse.ok(BreakdownView.of(breakdown, answer.missingPeers()))))
        .orElseGet(() -> error(HttpStatus.NOT_FOUND, "no trace rooted at " + service + " / "
            + operation + " in the tail window (GET /api/v1/tail lists the roots)"));
  }

  private static HttpResponse<ApiError> error(HttpStatus status, String message) {
    return HttpResponse.status(status).body(new ApiError(message));
  }

  @Serdeable
  record RootView(String service, String operation, long traces, long p50Ns, long p90Ns,
      long p99Ns) {

    static RootView of(TailRoot root) {
      return new RootView(root.root().service(), root.root().name(), root.traces(), root.p50Ns(),
          root.p90Ns(), root.p99Ns());
    }
  }

  @Serdeable
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record BreakdownView(
      String service,
      String operation,
      double quantile,
      long thetaNs,
      long slowTraces,
      long allTraces,
      double meanSlowNs,
      double meanAllNs,
      List<OperationRow> operations,
      List<StateRow> states,
      List<String> missingPeers) {

    static BreakdownView of(TailBreakdown tail, List<String> missingPeers) {
      return new BreakdownView(tail.root().service(), tail.root().name(), tail.quantile(),
          tail.thetaNs(), tail.slowTraces(), tail.allTraces(), tail.meanSlowNs(),
          tail.meanAllNs(),
          tail.operations().stream().map(row -> new OperationRow(row.key().service(),
              row.key().name(), row.meanSlowNs(), row.meanAllNs(), row.excessNs(),
              row.shareSlow(), row.shareAll())).toList(),
          tail.states().stream().map(row -> new StateRow(row.key(), row.meanSlowNs(),
              row.meanAllNs(), row.excessNs(), row.shareSlow(), row.shareAll())).toList(),
          missingPeers);
    }
  }

  @Serdeable
  record OperationRow(String service, String operation, double meanSlowNs, double meanAllNs,
      double excessNs, double shareSlow, double shareAll) {}

  @Serdeable
  record StateRow(String state, double meanSlowNs, double meanAllNs, double excessNs,
      double shareSlow, double shareAll) {}
}
