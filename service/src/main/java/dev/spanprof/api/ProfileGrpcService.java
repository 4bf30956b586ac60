package dev.spanprof.api;

import com.google.protobuf.ByteString;
import dev.spanprof.analysis.distribution.DistributionRegistry.Kind;
import dev.spanprof.analysis.pool.PoolWindows.PoolWindow;
import dev.spanprof.analysis.ranking.RankingSnapshot;
import dev.spanprof.config.HistogramConfiguration;
import dev.spanprof.span.Operation;
import dev.spanprof.span.TraceId;
import dev.spanprof.stages.DistributionService;
import dev.spanprof.stages.PoolService;
import dev.spanprof.stages.RankingService;
import dev.spanprof.stages.TailService;
import dev.spanprof.v1.Distribution;
import dev.spanprof.v1.Edges;
import dev.spanprof.v1.GetDistributionRequest;
import dev.spanprof.v1.GetEdgesRequest;
import dev.spanprof.v1.GetPoolsRequest;
import dev.spanprof.v1.GetRankingRequest;
import dev.spanprof.v1.GetTailRequest;
import dev.spanprof.v1.GetTraceProfileRequest;
import dev.spanprof.v1.LaneSegment;
import dev.spanprof.v1.ListTracesRequest;
import dev.spanprof.v1.Neighbour;
import dev.spanprof.v1.OperationTime;
import dev.spanprof.v1.PathSegment;
import dev.spanprof.v1.PathTime;
import dev.spanprof.v1.PoolProfile;
import dev.spanprof.v1.Pools;
import dev.spanprof.v1.ProfileServiceGrpc;
import dev.spanprof.v1.Quantile;
import dev.spanprof.v1.RankedOperation;
import dev.spanprof.v1.Ranking;
import dev.spanprof.v1.ResourceBusy;
import dev.spanprof.v1.SpanProfile;
import dev.spanprof.v1.StateTime;
import dev.spanprof.v1.Tail;
import dev.spanprof.v1.TailBreakdown;
import dev.spanprof.v1.TailRoot;
import dev.spanprof.v1.TailRow;
import dev.spanprof.v1.TraceList;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.AbstractHistogram;

/**
 * {@code spanprof.v1.ProfileService} on the gRPC port: the JSON query API's answers as protobuf.
 * Each answer is built from the same view the JSON endpoint serves, so the two cannot disagree.
 */
@Singleton
final class ProfileGrpcService extends ProfileServiceGrpc.ProfileServiceImplBase {

  private static final int DEFAULT_TOP = 50;

  private final RecentProfiles profiles;
  private final RankingService ranking;
  private final PoolService pools;
  private final DistributionService distributions;
  private final TailService tail;
  private final List<Double> quantiles;

  ProfileGrpcService(RecentProfiles profiles, RankingService ranking, PoolService pools,
      DistributionService distributions, TailService tail, HistogramConfiguration histograms) {
    this.profiles = profiles;
    this.ranking = ranking;
    this.pools = pools;
    this.distributions = distributions;
    this.tail = tail;
    this.quantiles = List.copyOf(histograms.getQuantiles());
  }

  @Override
  public void getTraceProfile(
      GetTraceProfileRequest request, StreamObserver<dev.spanprof.v1.TraceProfile> responses) {
    TraceId traceId;
    try {
      traceId = TraceId.fromBytes(request.getTraceId().toByteArray());
    } catch (IllegalArgumentException e) {
      responses.onError(Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException());
      return;
    }
    profiles.find(traceId).map(recent -> TraceProfileView.of(recent.profile(), recent.summary()))
        .ifPresentOrElse(view -> {
      responses.onNext(traceProfile(view));
      responses.onCompleted();
    }, () -> responses.onError(Status.NOT_FOUND
        .withDescription("no recently analysed trace " + traceId.toHex()).asRuntimeException()));
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
          request.getLimit() == 0 ? TraceQuery.DEFAULT_LIMIT : request.getLimit());
    } catch (IllegalArgumentException e) {
      responses.onError(Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException());
      return;
    }
    TraceList.Builder answer = TraceList.newBuilder();
    profiles.search(query).forEach(summary -> answer.addTraces(traceSummary(summary)));
    responses.onNext(answer.build());
    responses.onCompleted();
  }

  /** proto3 strings are never absent: empty means not given. */
  private static String orNull(String value) {
    return value.isEmpty() ? null : value;
  }

  @Override
  public void getTail(GetTailRequest request, StreamObserver<Tail> responses) {
    String service = orNull(request.getService());
    String operation = orNull(request.getOperation());
    if (service == null && operation == null) {
      Tail.Builder answer = Tail.newBuilder();
      tail.roots().forEach(root -> answer.addRoots(TailRoot.newBuilder()
          .setService(root.root().service())
          .setOperation(root.root().name())
          .setTraces(root.traces())
          .setP50Ns(root.p50Ns())
          .setP90Ns(root.p90Ns())
          .setP99Ns(root.p99Ns())));
      responses.onNext(answer.build());
      responses.onCompleted();
      return;
    }
    double quantile =
        request.getQuantile() == 0 ? TailController.DEFAULT_QUANTILE : request.getQuantile();
    if (service == null || operation == null || !(quantile > 0 && quantile < 1)) {
      responses.onError(Status.INVALID_ARGUMENT.withDescription(service == null || operation == null
              ? "service and operation (of a root) are both required"
              : "quantile must be in (0, 1), got " + quantile)
          .asRuntimeException());
      return;
    }
    tail.breakdown(new Operation(service, operation), quantile).ifPresentOrElse(breakdown -> {
      TailBreakdown.Builder proto = TailBreakdown.newBuilder()
          .setService(service)
          .setOperation(operation)
          .setQuantile(breakdown.quantile())
          .setThetaNs(breakdown.thetaNs())
          .setSlowTraces(breakdown.slowTraces())
          .setAllTraces(breakdown.allTraces())
          .setMeanSlowNs(breakdown.meanSlowNs())
          .setMeanAllNs(breakdown.meanAllNs());
      breakdown.operations().forEach(row ->
          proto.addOperations(tailRow(row.key().service(), row.key().name(), row)));
      breakdown.states().forEach(row -> proto.addStates(tailRow("", row.key(), row)));
      responses.onNext(Tail.newBuilder().setBreakdown(proto).build());
      responses.onCompleted();
    }, () -> responses.onError(Status.NOT_FOUND
        .withDescription("no trace rooted at " + service + " / " + operation
            + " in the tail window")
        .asRuntimeException()));
  }

  private static TailRow tailRow(String service, String name,
      dev.spanprof.analysis.tail.TailBreakdown.Row<?> row) {
    return TailRow.newBuilder()
        .setService(service)
        .setName(name)
        .setMeanSlowNs(row.meanSlowNs())
        .setMeanAllNs(row.meanAllNs())
        .setExcessNs(row.excessNs())
        .setShareSlow(row.shareSlow())
        .setShareAll(row.shareAll())
        .build();
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
      responses.onError(Status.INVALID_ARGUMENT.withDescription("sort must be "
              + "RANKING_SORT_INVOLVEMENT, _CRITICAL_PATH or _SELF_TIME, got " + request.getSortValue())
          .asRuntimeException());
      return;
    }
    if (request.getTop() < 0) {
      responses.onError(Status.INVALID_ARGUMENT
          .withDescription("top must not be negative, got " + request.getTop()).asRuntimeException());
      return;
    }
    if (request.getService().isEmpty() != request.getOperation().isEmpty()) {
      responses.onError(Status.INVALID_ARGUMENT.withDescription("service and operation name a "
          + "root operation together: give both or neither").asRuntimeException());
      return;
    }
    int top = request.getTop() == 0 ? DEFAULT_TOP : request.getTop();
    RankingSnapshot snapshot = request.getService().isEmpty() ? ranking.latest()
        : ranking.forRoot(new Operation(request.getService(), request.getOperation()));
    Ranking.Builder answer = Ranking.newBuilder();
    for (RankingSnapshot.Row row : snapshot.top(top, sort)) {
      RankingView.RankingRow view = RankingView.RankingRow.of(row);
      answer.addOperations(RankedOperation.newBuilder()
          .setService(view.service())
          .setName(view.name())
          .setRank(view.rank())
          .setInvolvement(view.involvement())
          .setCount(view.count())
          .setErrorCount(view.errorCount())
          .setDurationMeanNs(view.durationMeanNs())
          .setDurationMinNs(view.durationMinNs())
          .setDurationMaxNs(view.durationMaxNs())
          .setDurationStddevNs(view.durationStddevNs())
          .setDurationP50Ns(view.durationP50Ns())
          .setDurationP99Ns(view.durationP99Ns())
          .setSelfTimeMeanNs(view.selfTimeMeanNs())
          .setSelfTimeMinNs(view.selfTimeMinNs())
          .setSelfTimeMaxNs(view.selfTimeMaxNs())
          .setSelfTimeStddevNs(view.selfTimeStddevNs())
          .setSelfTimeTotalNs(view.selfTimeTotalNs())
          .setCriticalPathNs(view.criticalPathNs())
          .setCriticalPathShare(view.criticalPathShare())
          .addAllFlags(view.flags()));
    }
    responses.onNext(answer.build());
    responses.onCompleted();
  }

  @Override
  public void getEdges(GetEdgesRequest request, StreamObserver<Edges> responses) {
    if (request.getService().isEmpty() || request.getOperation().isEmpty()) {
      responses.onError(Status.INVALID_ARGUMENT
          .withDescription("service and operation are both required").asRuntimeException());
      return;
    }
    Operation target = new Operation(request.getService(), request.getOperation());
    RankingSnapshot snapshot = ranking.latest();
    Edges.Builder answer = Edges.newBuilder()
        .setService(request.getService())
        .setOperation(request.getOperation());
    snapshot.callers(target).forEach(edge ->
        answer.addCallers(neighbour(RankingView.Neighbour.of(edge.caller(), edge))));
    snapshot.callees(target).forEach(edge ->
        answer.addCallees(neighbour(RankingView.Neighbour.of(edge.callee(), edge))));
    responses.onNext(answer.build());
    responses.onCompleted();
  }

  @Override
  public void getPools(GetPoolsRequest request, StreamObserver<Pools> responses) {
    Pools.Builder answer = Pools.newBuilder();
    for (Map.Entry<String, List<PoolWindow>> pool : pools.recent().entrySet()) {
      if (!request.getPool().isEmpty() && !request.getPool().equals(pool.getKey())) {
        continue;
      }
      dev.spanprof.v1.PoolWindows.Builder windows =
          dev.spanprof.v1.PoolWindows.newBuilder().setPool(pool.getKey());
      for (PoolWindow window : pool.getValue()) {
        windows.addWindows(dev.spanprof.v1.PoolWindow.newBuilder()
            .setStartTimeUnixNano(window.startNanos())
            .setEndTimeUnixNano(window.endNanos())
            .setCapacity(window.figures().capacity())
            .setAvailableNs(window.figures().availableNs())
            .putAllUtilization(window.figures().utilization())
            .putAllAttributionNs(window.figures().attributionNs()));
      }
      answer.addPools(windows);
    }
    responses.onNext(answer.build());
    responses.onCompleted();
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
      responses.onError(Status.INVALID_ARGUMENT.withDescription("kind must be "
              + "DISTRIBUTION_KIND_DURATION, _SELF_TIME or _CRITICAL_PATH, got "
              + request.getKindValue())
          .asRuntimeException());
      return;
    }
    if (request.getService().isEmpty() || request.getOperation().isEmpty()) {
      responses.onError(Status.INVALID_ARGUMENT
          .withDescription("service and operation are both required").asRuntimeException());
      return;
    }
    distributions.merged(kind, request.getService(), request.getOperation())
        .ifPresentOrElse(merged -> {
          Distribution.Builder answer = Distribution.newBuilder()
              .setService(request.getService())
              .setOperation(request.getOperation())
              .setKind(request.getKind())
              .setCumulative(view(merged.cumulative()))
              .setWindow(view(merged.window()));
          if (merged.cumulativeCorrected() != null) {
            answer.setCumulativeCorrected(view(merged.cumulativeCorrected()))
                .setWindowCorrected(view(merged.windowCorrected()));
          }
          responses.onNext(answer.build());
          responses.onCompleted();
        }, () -> responses.onError(Status.NOT_FOUND
            .withDescription("no distribution for " + request.getService() + " / "
                + request.getOperation())
            .asRuntimeException()));
  }

  private dev.spanprof.v1.DistributionView view(AbstractHistogram histogram) {
    DistributionView view = DistributionView.of(histogram, quantiles);
    dev.spanprof.v1.DistributionView.Builder proto = dev.spanprof.v1.DistributionView.newBuilder()
        .setCount(view.count())
        .setMinNs(view.minNs())
        .setMaxNs(view.maxNs())
        .setMeanNs(view.meanNs())
        .setStddevNs(view.stddevNs())
        .setEncodedHistogram(ByteString.copyFrom(DistributionView.encode(histogram)));
    view.quantilesNs().forEach((quantile, value) -> proto.addQuantiles(
        Quantile.newBuilder().setQuantile(Double.parseDouble(quantile)).setValueNs(value)));
    view.percentiles().forEach(percentile -> proto.addPercentiles(Quantile.newBuilder()
        .setQuantile(percentile.percentile() / 100).setValueNs(percentile.valueNs())));
    return proto.build();
  }

  private static dev.spanprof.v1.TraceProfile traceProfile(TraceProfileView view) {
    dev.spanprof.v1.TraceProfile.Builder profile = dev.spanprof.v1.TraceProfile.newBuilder()
        .setTraceId(view.traceId())
        .setSpanCount(view.spanCount())
        .setSpanTimeNs(view.spanTimeNs())
        .setTtxNs(view.ttxNs())
        .setTtcNs(view.ttcNs())
        .setResourceTimeNs(view.resourceTimeNs())
        .setParallelism(view.parallelism())
        .setCriticalPathNs(view.criticalPathNs());
    view.states().forEach(state -> profile.addStates(StateTime.newBuilder()
        .setState(state.state())
        .setResourceNs(state.resourceNs())
        .setInclusiveNs(state.inclusiveNs())
        .setExclusiveNs(state.exclusiveNs())));
    view.resources().forEach(resource -> profile.addResources(ResourceBusy.newBuilder()
        .setResource(resource.resource())
        .setBusyNs(resource.busyNs())));
    view.operations().forEach(operation -> profile.addOperations(OperationTime.newBuilder()
        .setService(operation.service())
        .setName(operation.name())
        .setResourceTimeNs(operation.resourceTimeNs())));
    view.spans().forEach(span -> profile.addSpans(SpanProfile.newBuilder()
        .setSpanId(span.spanId())
        .setResource(span.resource())
        .setState(span.state())
        .setSelfTimeNs(span.selfTimeNs())
        .setCriticalPathNs(span.criticalPathNs())
        .setName(span.name())
        .setService(span.service())
        .setKind(span.kind().name())
        .setParentSpanId(span.parentSpanId() == null ? "" : span.parentSpanId())
        .setStartNanos(span.startNanos())
        .setEndNanos(span.endNanos())
        .setOnCriticalPath(span.onCriticalPath())
        .setOrphan(span.orphan())
        .setStatus(span.status().name())
        .setStatusMessage(span.statusMessage())));
    view.pools().forEach(pool -> profile.addPools(PoolProfile.newBuilder()
        .setPool(pool.pool())
        .setCapacity(pool.capacity())
        .setAvailableNs(pool.availableNs())
        .putAllUtilization(pool.utilization())
        .putAllAttributionNs(pool.attributionNs())));
    profile.setStartNanos(view.startNanos());
    view.lanes().forEach(lane -> profile.addLanes(LaneSegment.newBuilder()
        .setResource(lane.resource())
        .setStartNanos(lane.startNanos())
        .setEndNanos(lane.endNanos())
        .setState(lane.state())
        .setSpanId(lane.spanId())));
    view.criticalPathSegments().forEach(segment -> profile.addCriticalPathSegments(
        PathSegment.newBuilder()
            .setSpanId(segment.spanId())
            .setStartNanos(segment.startNanos())
            .setEndNanos(segment.endNanos())));
    view.criticalPathByOperation().forEach(time -> profile.addCriticalPathByOperation(
        PathTime.newBuilder()
            .setService(time.service())
            .setName(time.name())
            .setCriticalPathNs(time.criticalPathNs())));
    profile.setErrorCount(view.errorCount()).setOrphanCount(view.orphanCount())
        .addAllFragments(fragments(view.fragments()));
    if (view.summary() != null) {
      profile.setSummary(traceSummary(view.summary()));
    }
    return profile.build();
  }

  private static dev.spanprof.v1.TraceSummary traceSummary(TraceSummary summary) {
    return dev.spanprof.v1.TraceSummary.newBuilder()
        .setTraceId(summary.traceId())
        .setRootService(summary.rootService())
        .setRootOperation(summary.rootOperation())
        .setStartNanos(summary.startNanos())
        .setTtcNs(summary.ttcNs())
        .setTtxNs(summary.ttxNs())
        .setResourceTimeNs(summary.resourceTimeNs())
        .setParallelism(summary.parallelism())
        .setCriticalPathNs(summary.criticalPathNs())
        .setSpanCount(summary.spanCount())
        .setCompletion(summary.completion())
        .setComplete(summary.complete())
        .setErrorCount(summary.errorCount())
        .setOrphanCount(summary.orphanCount())
        .addAllFragments(fragments(summary.fragments()))
        .build();
  }

  private static List<dev.spanprof.v1.Fragment> fragments(List<TraceSummary.Fragment> fragments) {
    return fragments.stream().map(fragment -> dev.spanprof.v1.Fragment.newBuilder()
        .setSpanCount(fragment.spanCount()).setCompletion(fragment.completion()).build())
        .toList();
  }

  private static Neighbour neighbour(RankingView.Neighbour view) {
    return Neighbour.newBuilder()
        .setService(view.service())
        .setName(view.name())
        .setCount(view.count())
        .setCalleeDurationMeanNs(view.calleeDurationMeanNs())
        .setCalleeDurationMaxNs(view.calleeDurationMaxNs())
        .build();
  }
}
