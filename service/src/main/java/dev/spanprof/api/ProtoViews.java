package dev.spanprof.api;

import com.google.protobuf.ByteString;
import com.google.protobuf.ListValue;
import com.google.protobuf.NullValue;
import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import dev.spanprof.analysis.pool.PoolWindows.PoolWindow;
import dev.spanprof.analysis.ranking.RankingSnapshot;
import dev.spanprof.analysis.tail.TailRoot;
import dev.spanprof.v1.LaneSegment;
import dev.spanprof.v1.Neighbour;
import dev.spanprof.v1.OperationTime;
import dev.spanprof.v1.PathSegment;
import dev.spanprof.v1.PathTime;
import dev.spanprof.v1.PoolProfile;
import dev.spanprof.v1.Quantile;
import dev.spanprof.v1.RankedOperation;
import dev.spanprof.v1.ResourceBusy;
import dev.spanprof.v1.SpanEvent;
import dev.spanprof.v1.SpanLink;
import dev.spanprof.v1.SpanProfile;
import dev.spanprof.v1.StateTime;
import dev.spanprof.v1.TailRow;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.AbstractHistogram;

/**
 * The JSON API's views as {@code spanprof.v1} messages, field by field: the gRPC service answers
 * from the same views as the JSON endpoints, so the two cannot disagree, and this is the one place
 * that knows both shapes.
 */
final class ProtoViews {

  private ProtoViews() {}

  static RankedOperation rankedOperation(RankingSnapshot.Row row) {
    RankingView.RankingRow view = RankingView.RankingRow.of(row);
    return RankedOperation.newBuilder()
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
        .addAllFlags(view.flags())
        .build();
  }

  static dev.spanprof.v1.TailRoot tailRoot(TailRoot root) {
    return dev.spanprof.v1.TailRoot.newBuilder()
        .setService(root.root().service())
        .setOperation(root.root().name())
        .setTraces(root.traces())
        .setP50Ns(root.p50Ns())
        .setP90Ns(root.p90Ns())
        .setP99Ns(root.p99Ns())
        .build();
  }

  static dev.spanprof.v1.TailBreakdown tailBreakdown(
      dev.spanprof.analysis.tail.TailBreakdown breakdown, String service, String operation) {
    dev.spanprof.v1.TailBreakdown.Builder proto = dev.spanprof.v1.TailBreakdown.newBuilder()
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
    return proto.build();
  }

  static dev.spanprof.v1.PoolWindows poolWindows(String pool,
      List<PoolsController.Window> windows) {
    dev.spanprof.v1.PoolWindows.Builder proto =
        dev.spanprof.v1.PoolWindows.newBuilder().setPool(pool);
    for (PoolsController.Window window : windows) {
      dev.spanprof.v1.PoolWindow.Builder windowProto = dev.spanprof.v1.PoolWindow.newBuilder()
          .setStartTimeUnixNano(window.startNanos())
          .setEndTimeUnixNano(window.endNanos())
          .setCapacity(window.capacity())
          .setAvailableNs(window.availableNs())
          .putAllUtilization(window.utilization())
          .putAllAttributionNs(window.attributionNs());
      window.attributionByReplica().forEach((replica, attribution) ->
          windowProto.putAttributionByReplica(replica, dev.spanprof.v1.Attribution.newBuilder()
              .putAllAttributionNs(attribution).build()));
      proto.addWindows(windowProto);
    }
    return proto.build();
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

  static dev.spanprof.v1.DistributionView distribution(AbstractHistogram histogram,
      List<Double> quantiles) {
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

  /** Attributes as JSON writes them, as a protobuf Struct: numbers become doubles. */
  private static Struct struct(Map<String, Object> attributes) {
    Struct.Builder struct = Struct.newBuilder();
    attributes.forEach((key, value) -> struct.putFields(key, value(value)));
    return struct.build();
  }

  @SuppressWarnings("unchecked")
  private static Value value(Object value) {
    if (value instanceof String text) {
      return Value.newBuilder().setStringValue(text).build();
    } else if (value instanceof Boolean bool) {
      return Value.newBuilder().setBoolValue(bool).build();
    } else if (value instanceof Number number) {
      return Value.newBuilder().setNumberValue(number.doubleValue()).build();
    } else if (value instanceof List<?> list) {
      return Value.newBuilder().setListValue(ListValue.newBuilder()
          .addAllValues(list.stream().map(ProtoViews::value).toList())).build();
    } else if (value instanceof Map<?, ?> map) {
      return Value.newBuilder().setStructValue(struct((Map<String, Object>) map)).build();
    }
    return Value.newBuilder().setNullValue(NullValue.NULL_VALUE).build();
  }

  static dev.spanprof.v1.TraceProfile traceProfile(TraceProfileView view) {
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
        .setStatusMessage(span.statusMessage())
        .setAttributes(struct(span.attributes()))
        .addAllEvents(span.events().stream().map(event -> SpanEvent.newBuilder()
            .setName(event.name()).setTimeNanos(event.timeNanos())
            .setAttributes(struct(event.attributes())).build()).toList())
        .addAllLinks(span.links().stream().map(link -> SpanLink.newBuilder()
            .setTraceId(link.traceId()).setSpanId(link.spanId())
            .setAttributes(struct(link.attributes())).build()).toList())
        .setOtelResource(span.otelResource())));
    profile.setAttributesKept(view.attributesKept());
    view.otelResources().forEach(resource -> profile.addOtelResources(struct(resource)));
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

  static dev.spanprof.v1.TraceSummary traceSummary(TraceSummary summary) {
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
        .setArrivalEpochNanos(summary.arrivalNanos())
        .build();
  }

  static TraceSummary traceSummary(dev.spanprof.v1.TraceSummary proto) {
    return new TraceSummary(proto.getTraceId(), proto.getRootService(), proto.getRootOperation(),
        proto.getStartNanos(), proto.getTtcNs(), proto.getTtxNs(), proto.getResourceTimeNs(),
        proto.getParallelism(), proto.getCriticalPathNs(), (int) proto.getSpanCount(),
        proto.getCompletion(), proto.getComplete(), (int) proto.getErrorCount(),
        (int) proto.getOrphanCount(), proto.getFragmentsList().stream()
            .map(fragment -> new TraceSummary.Fragment((int) fragment.getSpanCount(),
                fragment.getCompletion()))
            .toList(), proto.getArrivalEpochNanos());
  }

  private static List<dev.spanprof.v1.Fragment> fragments(List<TraceSummary.Fragment> fragments) {
    return fragments.stream().map(fragment -> dev.spanprof.v1.Fragment.newBuilder()
        .setSpanCount(fragment.spanCount()).setCompletion(fragment.completion()).build())
        .toList();
  }

  static Neighbour neighbour(RankingView.Neighbour view) {
    return Neighbour.newBuilder()
        .setService(view.service())
        .setName(view.name())
        .setCount(view.count())
        .setCalleeDurationMeanNs(view.calleeDurationMeanNs())
        .setCalleeDurationMaxNs(view.calleeDurationMaxNs())
        .build();
  }
}
