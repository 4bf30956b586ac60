package dev.spanprof.api;

import dev.spanprof.analysis.distribution.DistributionRegistry.Kind;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import dev.spanprof.analysis.ranking.RankingSnapshot;
import dev.spanprof.analysis.tail.TailBreakdown;
import dev.spanprof.analysis.tail.TailRoot;
import dev.spanprof.config.HistogramConfiguration;
import dev.spanprof.span.Operation;
import dev.spanprof.span.TraceId;
import dev.spanprof.stages.DistributionService;
import dev.spanprof.v1.Distribution;
import dev.spanprof.v1.Edges;
import dev.spanprof.v1.GetDistributionRequest;
import dev.spanprof.v1.GetEdgesRequest;
import dev.spanprof.v1.GetPoolsRequest;
import dev.spanprof.v1.GetRankingRequest;
import dev.spanprof.v1.GetStateRequest;
import dev.spanprof.v1.GetTailRequest;
import dev.spanprof.v1.GetTraceProfileRequest;
import dev.spanprof.v1.ListTracesRequest;
import dev.spanprof.v1.ProfileServiceGrpc;
import dev.spanprof.v1.Ranking;
import dev.spanprof.v1.State;
import dev.spanprof.v1.Tail;
import dev.spanprof.v1.TraceList;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code spanprof.v1.ProfileService} on the gRPC port: the JSON query API's answers as protobuf.
 * Each method checks its request, asks the same service the JSON endpoint asks and answers with
 * that endpoint's view in {@link ProtoViews}' shape. proto3 has no absent scalars, so an empty
 * string or a zero means "not given" and takes the JSON endpoint's default.
 */
@Singleton
final class ProfileGrpcService extends ProfileServiceGrpc.ProfileServiceImplBase {

  private static final int DEFAULT_TOP = 50;

  private final RecentProfiles profiles;
  private final Answers answers;
  private final Fleet fleet;
  private final LocalState state;
  private final List<Double> quantiles;

  ProfileGrpcService(RecentProfiles profiles, Answers answers, Fleet fleet, LocalState state,
      HistogramConfiguration histograms) {
    this.profiles = profiles;
    this.answers = answers;
    this.fleet = fleet;
    this.state = state;
    this.quantiles = List.copyOf(histograms.getQuantiles());
  }

  @Override
  public void getTraceProfile(
      GetTraceProfileRequest request, StreamObserver<dev.spanprof.v1.TraceProfile> responses) {
    TraceId traceId;
    try {
      traceId = TraceId.fromBytes(request.getTraceId().toByteArray());
    } catch (IllegalArgumentException e) {
      invalid(responses, e.getMessage());
      return;
    }
    if (fleet.answers(request.getLocal())) {
      Fleet.Answer<Optional<byte[]>> answer = fleet.trace(traceId);
      if (answer.value().isPresent()) {
        try {
          // The replica's JSON profile mirrors the message field for field.
          dev.spanprof.v1.TraceProfile.Builder profile = dev.spanprof.v1.TraceProfile.newBuilder();
          JsonFormat.parser().ignoringUnknownFields()
              .merge(new String(answer.value().get(), StandardCharsets.UTF_8), profile);
          answer(responses, profile.build());
        } catch (InvalidProtocolBufferException e) {
          responses.onError(Status.INTERNAL.withDescription(
              "a replica's profile does not read: " + e.getMessage()).asRuntimeException());
        }
      } else {
        notFound(responses, "no replica has recently analysed trace " + traceId.toHex()
            + (answer.missingPeers().isEmpty() ? "" : "; missing peers: " + answer.missingPeers()));
      }
      return;
    }
    profiles.find(traceId).ifPresentOrElse(
        recent -> answer(responses, ProtoViews.traceProfile(
            TraceProfileView.of(recent.profile(), recent.summary(),
                profiles.originals(recent)))),
        () -> notFound(responses, "no recently analysed trace " + traceId.toHex()));
  }

  @Override
  public void listTraces(ListTracesRequest request, StreamObserver<TraceList> responses) {
    TraceQuery query;
    try {
      query = TraceQuery.of(orNull(request.getService()), orNull(request.getOperation()),
          orNull(request.getContainsService()), orNull(request.getContainsOperation()),
          request.getMinTtcNs(),
          request.getMaxTtcNs() == 0 ? Long.MAX_VALUE : request.getMaxTtcNs(),
          request.getMinParallelism(),
          request.getMaxParallelism() == 0 ? Double.POSITIVE_INFINITY
              : request.getMaxParallelism(),
          orNull(request.getCompletion()), orNull(request.getError()),
          orNull(request.getOrder()),
          request.getLimit() == 0 ? TraceQuery.DEFAULT_LIMIT : request.getLimit())
          .narrowed(request.getOffset(),
              request.getMinStartNs() == 0 ? Long.MIN_VALUE : request.getMinStartNs(),
              request.getMaxStartNs() == 0 ? Long.MAX_VALUE : request.getMaxStartNs(),
              request.getAttributesMap());
    } catch (IllegalArgumentException e) {
      invalid(responses, e.getMessage());
      return;
    }
    Fleet.Answer<List<TraceSummary>> found = answers.traces(query, request.getLocal());
    TraceList.Builder answer = TraceList.newBuilder().addAllMissingPeers(found.missingPeers());
    found.value().forEach(summary -> answer.addTraces(ProtoViews.traceSummary(summary)));
    answer(responses, answer.build());
  }

  @Override
  public void getTail(GetTailRequest request, StreamObserver<Tail> responses) {
    String service = orNull(request.getService());
    String operation = orNull(request.getOperation());
    if (service == null && operation == null) {
      Fleet.Answer<List<TailRoot>> roots = answers.tailRoots(request.getLocal());
      Tail.Builder answer = Tail.newBuilder().addAllMissingPeers(roots.missingPeers());
      roots.value().forEach(root -> answer.addRoots(ProtoViews.tailRoot(root)));
      answer(responses, answer.build());
      return;
    }
    double quantile =
        request.getQuantile() == 0 ? TailController.DEFAULT_QUANTILE : request.getQuantile();
    if (service == null || operation == null) {
      invalid(responses, "service and operation (of a root) are both required");
      return;
    }
    if (!(quantile > 0 && quantile < 1)) {
      invalid(responses, "quantile must be in (0, 1), got " + quantile);
      return;
    }
    Operation root = new Operation(service, operation);
    Fleet.Answer<Optional<TailBreakdown>> found =
        answers.tailBreakdown(root, quantile, request.getLocal());
    found.value().ifPresentOrElse(
        breakdown -> answer(responses, Tail.newBuilder()
            .setBreakdown(ProtoViews.tailBreakdown(breakdown, service, operation))
            .addAllMissingPeers(found.missingPeers()).build()),
        () -> notFound(responses,
            "no trace rooted at " + service + " / " + operation + " in the tail window"));
  }

  @Override
  public void getRanking(GetRankingRequest request, StreamObserver<Ranking> responses) {
    RankingSnapshot.Sort sort = switch (request.getSort()) {
      case RANKING_SORT_INVOLVEMENT -> RankingSnapshot.Sort.INVOLVEMENT;
      case RANKING_SORT_CRITICAL_PATH -> RankingSnapshot.Sort.CRITICAL_PATH;
      case RANKING_SORT_SELF_TIME -> RankingSnapshot.Sort.SELF_TIME;
      case UNRECOGNIZED -> null;
    };
    if (sort == null) {
      invalid(responses, "sort must be RANKING_SORT_INVOLVEMENT, _CRITICAL_PATH or _SELF_TIME, "
          + "got " + request.getSortValue());
      return;
    }
    if (request.getTop() < 0) {
      invalid(responses, "top must not be negative, got " + request.getTop());
      return;
    }
    if (request.getService().isEmpty() != request.getOperation().isEmpty()) {
      invalid(responses,
          "service and operation name a root operation together: give both or neither");
      return;
    }
    int top = request.getTop() == 0 ? DEFAULT_TOP : request.getTop();
    Operation root = request.getService().isEmpty() ? null
        : new Operation(request.getService(), request.getOperation());
    Fleet.Answer<RankingSnapshot> found = answers.ranking(root, request.getLocal());
    Ranking.Builder answer = Ranking.newBuilder().addAllMissingPeers(found.missingPeers());
    found.value().top(top, sort).forEach(row -> answer.addOperations(ProtoViews.rankedOperation(row)));
    answer(responses, answer.build());
  }

  @Override
  public void getEdges(GetEdgesRequest request, StreamObserver<Edges> responses) {
    if (request.getService().isEmpty() || request.getOperation().isEmpty()) {
      invalid(responses, "service and operation are both required");
      return;
    }
    Operation target = new Operation(request.getService(), request.getOperation());
    Fleet.Answer<RankingSnapshot> found = answers.ranking(null, request.getLocal());
    RankingSnapshot snapshot = found.value();
    Edges.Builder answer = Edges.newBuilder()
        .setService(request.getService())
        .setOperation(request.getOperation())
        .addAllMissingPeers(found.missingPeers());
    snapshot.callers(target).forEach(edge -> answer.addCallers(
        ProtoViews.neighbour(RankingView.Neighbour.of(edge.caller(), edge))));
    snapshot.callees(target).forEach(edge -> answer.addCallees(
        ProtoViews.neighbour(RankingView.Neighbour.of(edge.callee(), edge))));
    answer(responses, answer.build());
  }

  @Override
  public void getPools(GetPoolsRequest request, StreamObserver<dev.spanprof.v1.Pools> responses) {
    Fleet.Answer<Map<String, List<PoolsController.Window>>> found =
        answers.pools(request.getLocal());
    dev.spanprof.v1.Pools.Builder answer =
        dev.spanprof.v1.Pools.newBuilder().addAllMissingPeers(found.missingPeers());
    found.value().forEach((pool, windows) -> {
      if (request.getPool().isEmpty() || request.getPool().equals(pool)) {
        answer.addPools(ProtoViews.poolWindows(pool, windows));
      }
    });
    answer(responses, answer.build());
  }

  @Override
  public void getDistribution(
      GetDistributionRequest request, StreamObserver<Distribution> responses) {
    Kind kind = switch (request.getKind()) {
      case DISTRIBUTION_KIND_DURATION -> Kind.DURATION;
      case DISTRIBUTION_KIND_SELF_TIME -> Kind.SELF_TIME;
      case DISTRIBUTION_KIND_CRITICAL_PATH -> Kind.CRITICAL_PATH;
      case UNRECOGNIZED -> null;
    };
    if (kind == null) {
      invalid(responses, "kind must be DISTRIBUTION_KIND_DURATION, _SELF_TIME or "
          + "_CRITICAL_PATH, got " + request.getKindValue());
      return;
    }
    if (request.getService().isEmpty() || request.getOperation().isEmpty()) {
      invalid(responses, "service and operation are both required");
      return;
    }
    Fleet.Answer<Optional<DistributionService.Merged>> found = answers.distribution(kind,
        new Operation(request.getService(), request.getOperation()), request.getLocal());
    found.value().ifPresentOrElse(
        merged -> {
          Distribution.Builder answer = Distribution.newBuilder()
              .addAllMissingPeers(found.missingPeers())
              .setService(request.getService())
              .setOperation(request.getOperation())
              .setKind(request.getKind())
              .setCumulative(ProtoViews.distribution(merged.cumulative(), quantiles))
              .setWindow(ProtoViews.distribution(merged.window(), quantiles));
          if (merged.cumulativeCorrected() != null) {
            answer.setCumulativeCorrected(
                    ProtoViews.distribution(merged.cumulativeCorrected(), quantiles))
                .setWindowCorrected(ProtoViews.distribution(merged.windowCorrected(), quantiles));
          }
          answer(responses, answer.build());
        },
        () -> notFound(responses,
            "no distribution for " + request.getService() + " / " + request.getOperation()));
  }

  @Override
  public void getState(GetStateRequest request, StreamObserver<State> responses) {
    TraceQuery traces = TraceQuery.of(null, null, null, null, 0, Long.MAX_VALUE, 0,
        Double.POSITIVE_INFINITY, null, null, null, TraceQuery.DEFAULT_LIMIT);
    try {
      answer(responses, state.read(request, traces));
    } catch (IllegalArgumentException e) {
      invalid(responses, e.getMessage());
    }
  }

  private static String orNull(String value) {
    return value.isEmpty() ? null : value;
  }

  private static <T> void answer(StreamObserver<T> responses, T message) {
    responses.onNext(message);
    responses.onCompleted();
  }

  private static void invalid(StreamObserver<?> responses, String message) {
    responses.onError(Status.INVALID_ARGUMENT.withDescription(message).asRuntimeException());
  }

  private static void notFound(StreamObserver<?> responses, String message) {
    responses.onError(Status.NOT_FOUND.withDescription(message).asRuntimeException());
  }
}
