package dev.spanprof.api;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import dev.spanprof.api.TraceProfileController.ApiError;
import dev.spanprof.v1.DistributionKind;
import dev.spanprof.v1.GetStateRequest;
import dev.spanprof.v1.State;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.QueryValue;
import java.util.List;

/**
 * {@code GET /api/v1/state?scope=local&part=…}: this process's additive state (state.proto), as
 * protobuf when asked with {@code Accept: application/x-protobuf}, else as its proto3 JSON
 * mapping. {@code part} (repeatable) narrows it to what a fleet query needs; {@code service} and
 * {@code operation} to one root or operation (the recent traces' root among them); {@code kind}
 * picks the distribution; the list's parameters ({@code order}, {@code limit}, filters) pick the
 * recent traces; {@code asOf} (epoch
 * nanoseconds) ends the windows at the asker's clock and {@code summed=true} adds each window's
 * slices up into one.
 */
@Controller("/api/v1/state")
final class StateController {

  private final LocalState state;

  StateController(LocalState state) {
    this.state = state;
  }

  @Get(produces = {MediaType.APPLICATION_JSON, Fleet.PROTOBUF})
  HttpResponse<?> state(HttpRequest<?> request, @QueryValue @Nullable String scope,
      @QueryValue @Nullable List<String> part, @QueryValue @Nullable String service,
      @QueryValue @Nullable String operation, @QueryValue @Nullable String kind,
      @QueryValue @Nullable Long asOf, @QueryValue @Nullable Boolean summed) {
    if (!"local".equals(scope)) {
      return badRequest("the state is one process's own: ask with scope=local (a fleet's answers "
          + "are merged from its replicas' states, never a state of their own)");
    }
    if ((service == null) != (operation == null)) {
      return badRequest("service and operation go together: give both or neither");
    }
    DistributionKind distributionKind = switch (kind == null ? "duration" : kind) {
      case "duration" -> DistributionKind.DISTRIBUTION_KIND_DURATION;
      case "self_time" -> DistributionKind.DISTRIBUTION_KIND_SELF_TIME;
      case "critical_path" -> DistributionKind.DISTRIBUTION_KIND_CRITICAL_PATH;
      default -> null;
    };
    if (distributionKind == null) {
      return badRequest("kind must be duration, self_time or critical_path, got '" + kind + "'");
    }
    GetStateRequest.Builder asked = GetStateRequest.newBuilder().setKind(distributionKind)
        .setAsOfEpochNanos(asOf == null ? 0 : asOf)
        .setSummed(summed != null && summed);
    if (part != null) {
      asked.addAllParts(part);
    }
    if (service != null) {
      asked.setService(service).setOperation(operation);
    }
    State answer;
    try {
      TraceQuery traces = TraceQuery.parse(TraceQuery.firstValues(request.getParameters()));
      answer = state.read(asked.build(), traces);
    } catch (IllegalArgumentException e) {
      return badRequest(e.getMessage());
    }
    String accept = request.getHeaders().get(HttpHeaders.ACCEPT);
    if (accept != null && accept.contains(Fleet.PROTOBUF)) {
      return HttpResponse.ok(answer.toByteArray()).contentType(Fleet.PROTOBUF);
    }
    try {
      return HttpResponse.ok(JsonFormat.printer().omittingInsignificantWhitespace().print(answer))
          .contentType(MediaType.APPLICATION_JSON_TYPE);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("the state does not print as JSON", e);
    }
  }

  private static HttpResponse<ApiError> badRequest(String message) {
    return HttpResponse.status(HttpStatus.BAD_REQUEST).body(new ApiError(message));
  }
}
