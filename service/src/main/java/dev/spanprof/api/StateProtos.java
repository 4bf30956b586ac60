package dev.spanprof.api;

import com.google.protobuf.ByteString;
import dev.spanprof.analysis.distribution.DistributionRegistry.Kind;
import dev.spanprof.analysis.pool.PoolSweep;
import dev.spanprof.analysis.pool.PoolWindows.PoolWindow;
import dev.spanprof.analysis.ranking.RankingState;
import dev.spanprof.analysis.tail.TailState;
import dev.spanprof.span.Operation;
import dev.spanprof.stages.DistributionService;
import dev.spanprof.v1.CallSums;
import dev.spanprof.v1.DistributionKind;
import dev.spanprof.v1.DistributionState;
import dev.spanprof.v1.Moments;
import dev.spanprof.v1.OperationKey;
import dev.spanprof.v1.OperationSums;
import dev.spanprof.v1.PoolWindowState;
import dev.spanprof.v1.RankingSlice;
import dev.spanprof.v1.RootSums;
import dev.spanprof.v1.State;
import dev.spanprof.v1.TailBucket;
import dev.spanprof.v1.TailRootState;
import dev.spanprof.v1.TailSlice;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.DataFormatException;
import org.HdrHistogram.AbstractHistogram;
import org.HdrHistogram.Histogram;

/**
 * The additive state between the analysis' records and {@code spanprof.v1.State} (state.proto),
 * both ways. Operations are written once, in the state's table, and named by index elsewhere.
 */
final class StateProtos {

  static final int VERSION = 1;

  private StateProtos() {}

  /** Writes a state, giving each operation an index in its table on first use. */
  static final class Writer {
    private final State.Builder state = State.newBuilder().setVersion(VERSION);
    private final Map<Operation, Integer> indexes = new HashMap<>();

    Writer(long readEpochNanos) {
      state.setReadEpochNanos(readEpochNanos);
    }

    private int index(Operation operation) {
      return indexes.computeIfAbsent(operation, unused -> {
        state.addOperations(OperationKey.newBuilder()
            .setService(operation.service()).setName(operation.name()));
        return indexes.size();
      });
    }

    Writer ranking(RankingState ranking) {
      dev.spanprof.v1.RankingState.Builder proto =
          dev.spanprof.v1.RankingState.newBuilder().setSliceNanos(ranking.sliceNanos());
      for (RankingState.Slice slice : ranking.slices()) {
        RankingSlice.Builder sliceProto = RankingSlice.newBuilder().setSlice(slice.id());
        slice.roots().forEach(root -> sliceProto.addRoots(rootSums(root)));
        if (slice.fragments() != null) {
          sliceProto.setFragments(rootSums(slice.fragments()));
        }
        proto.addSlices(sliceProto);
      }
      state.setRanking(proto);
      return this;
    }

    private RootSums rootSums(RankingState.RootSums root) {
      RootSums.Builder proto = RootSums.newBuilder().setDurationNanos(root.durationNanos());
      if (root.root() != null) {
        proto.setRoot(index(root.root()));
      }
      for (RankingState.OperationSums sums : root.operations()) {
        OperationSums.Builder operation = OperationSums.newBuilder()
            .setOperation(index(sums.operation()))
            .setCount(sums.count())
            .setErrors(sums.errors())
            .setDuration(moments(sums.duration()))
            .setSelfTime(moments(sums.selfTime()))
            .setCriticalPathNanos(sums.criticalPathNanos());
        Arrays.stream(sums.durationIndexes()).forEach(operation::addDurationIndexes);
        Arrays.stream(sums.durationCounts()).forEach(operation::addDurationCounts);
        for (RankingState.CallSums call : sums.calls()) {
          operation.addCalls(CallSums.newBuilder().setCallee(index(call.callee()))
              .setCount(call.count()).setSumNanos(call.sumNanos()).setMaxNanos(call.maxNanos()));
        }
        proto.addOperations(operation);
      }
      return proto.build();
    }

    private static Moments moments(RankingState.Moments moments) {
      return Moments.newBuilder().setSum(moments.sum()).setSumOfSquares(moments.sumOfSquares())
          .setMin(moments.min()).setMax(moments.max()).build();
    }

    Writer tail(TailState tail) {
      dev.spanprof.v1.TailState.Builder proto =
          dev.spanprof.v1.TailState.newBuilder().setSliceNanos(tail.sliceNanos());
      for (TailState.RootState root : tail.roots()) {
        TailRootState.Builder rootProto = TailRootState.newBuilder()
            .setRoot(index(root.root()))
            .addAllStates(root.states());
        root.operations().forEach(operation -> rootProto.addOperations(index(operation)));
        for (TailState.Slice slice : root.slices()) {
          TailSlice.Builder sliceProto = TailSlice.newBuilder().setSlice(slice.id());
          for (TailState.Bucket bucket : slice.buckets()) {
            TailBucket.Builder bucketProto = TailBucket.newBuilder()
                .setBucket(bucket.bucket())
                .setCount(bucket.count())
                .setDurationNanos(bucket.durationNanos());
            Arrays.stream(bucket.operationNanos()).forEach(bucketProto::addOperationNanos);
            Arrays.stream(bucket.stateNanos()).forEach(bucketProto::addStateNanos);
            sliceProto.addBuckets(bucketProto);
          }
          rootProto.addSlices(sliceProto);
        }
        proto.addRoots(rootProto);
      }
      state.setTail(proto);
      return this;
    }

    Writer distribution(Kind kind, Operation operation, DistributionService.Merged merged) {
      DistributionState.Builder proto = DistributionState.newBuilder()
          .setOperation(index(operation))
          .setKind(kind(kind))
          .setCumulative(encode(merged.cumulative()))
          .setWindow(encode(merged.window()));
      if (merged.cumulativeCorrected() != null) {
        proto.setCumulativeCorrected(encode(merged.cumulativeCorrected()))
            .setWindowCorrected(encode(merged.windowCorrected()));
      }
      state.addDistributions(proto);
      return this;
    }

    Writer pools(Map<String, List<PoolWindow>> pools) {
      pools.forEach((pool, windows) -> {
        for (PoolWindow window : windows) {
          PoolSweep.Figures figures = window.figures();
          PoolWindowState.Builder proto = PoolWindowState.newBuilder()
              .setPool(pool)
              .setStartNanos(window.startNanos())
              .setEndNanos(window.endNanos())
              .setCapacity(figures.capacity())
              .setAvailableNs(figures.availableNs())
              .putAllAttributionNs(figures.attributionNs())
              .putAllOccupiedNs(figures.occupiedNs());
          state.addPools(proto);
        }
      });
      return this;
    }

    Writer traces(List<TraceSummary> traces) {
      traces.forEach(summary -> state.addTraces(ProtoViews.traceSummary(summary)));
      return this;
    }

    State build() {
      return state.build();
    }
  }

  /** Reads a peer's state; throws IllegalArgumentException for one of an unknown version. */
  static final class Reader {
    private final State state;
    private final List<Operation> operations;

    Reader(State state) {
      if (state.getVersion() != VERSION) {
        throw new IllegalArgumentException(
            "state version " + state.getVersion() + ", this replica reads " + VERSION);
      }
      this.state = state;
      this.operations = state.getOperationsList().stream()
          .map(key -> new Operation(key.getService(), key.getName())).toList();
    }

    private Operation operation(int index) {
      if (index < 0 || index >= operations.size()) {
        throw new IllegalArgumentException("operation index " + index + " outside the table of "
            + operations.size());
      }
      return operations.get(index);
    }

    RankingState ranking() {
      dev.spanprof.v1.RankingState proto = state.getRanking();
      List<RankingState.Slice> slices = new ArrayList<>(proto.getSlicesCount());
      for (RankingSlice slice : proto.getSlicesList()) {
        slices.add(new RankingState.Slice(slice.getSlice(),
            slice.getRootsList().stream().map(root -> rootSums(root, true)).toList(),
            slice.hasFragments() ? rootSums(slice.getFragments(), false) : null));
      }
      return new RankingState(proto.getSliceNanos(), slices);
    }

    private RankingState.RootSums rootSums(RootSums proto, boolean hasRoot) {
      List<RankingState.OperationSums> sums = new ArrayList<>(proto.getOperationsCount());
      for (OperationSums operation : proto.getOperationsList()) {
        if (operation.getDurationIndexesCount() != operation.getDurationCountsCount()) {
          throw new IllegalArgumentException("duration indexes and counts differ in number");
        }
        sums.add(new RankingState.OperationSums(operation(operation.getOperation()),
            operation.getCount(), operation.getErrors(), moments(operation.getDuration()),
            moments(operation.getSelfTime()), operation.getCriticalPathNanos(),
            operation.getDurationIndexesList().stream().mapToInt(Integer::intValue).toArray(),
            operation.getDurationCountsList().stream().mapToLong(Long::longValue).toArray(),
            operation.getCallsList().stream().map(call -> new RankingState.CallSums(
                operation(call.getCallee()), call.getCount(), call.getSumNanos(),
                call.getMaxNanos())).toList()));
      }
      return new RankingState.RootSums(hasRoot ? operation(proto.getRoot()) : null,
          proto.getDurationNanos(), sums);
    }

    private static RankingState.Moments moments(Moments proto) {
      return new RankingState.Moments(proto.getSum(), proto.getSumOfSquares(), proto.getMin(),
          proto.getMax());
    }

    TailState tail() {
      dev.spanprof.v1.TailState proto = state.getTail();
      List<TailState.RootState> roots = new ArrayList<>(proto.getRootsCount());
      for (TailRootState root : proto.getRootsList()) {
        List<TailState.Slice> slices = new ArrayList<>(root.getSlicesCount());
        for (TailSlice slice : root.getSlicesList()) {
          List<TailState.Bucket> buckets = new ArrayList<>(slice.getBucketsCount());
          for (TailBucket bucket : slice.getBucketsList()) {
            if (bucket.getOperationNanosCount() > root.getOperationsCount()
                || bucket.getStateNanosCount() > root.getStatesCount()) {
              throw new IllegalArgumentException("a tail bucket has more rows than its root");
            }
            buckets.add(new TailState.Bucket(bucket.getBucket(), bucket.getCount(),
                bucket.getDurationNanos(),
                bucket.getOperationNanosList().stream().mapToLong(Long::longValue).toArray(),
                bucket.getStateNanosList().stream().mapToLong(Long::longValue).toArray()));
          }
          slices.add(new TailState.Slice(slice.getSlice(), buckets));
        }
        roots.add(new TailState.RootState(operation(root.getRoot()),
            root.getOperationsList().stream().map(this::operation).toList(),
            List.copyOf(root.getStatesList()), slices));
      }
      return new TailState(proto.getSliceNanos(), roots);
    }

    /**
     * The peer's distribution of {@code operation} and {@code kind} added to {@code into}'s
     * histograms; false when it has none.
     */
    boolean addDistribution(MergedHistograms into, Operation operation, Kind kind)
        throws DataFormatException {
      boolean found = false;
      for (DistributionState proto : state.getDistributionsList()) {
        if (proto.getKind() != kind(kind) || !operation(proto.getOperation()).equals(operation)) {
          continue;
        }
        // Every view decoded before any is added: a peer whose encoding does not read adds none.
        Histogram cumulative = decode(proto.getCumulative());
        Histogram window = decode(proto.getWindow());
        boolean corrects = !proto.getCumulativeCorrected().isEmpty();
        Histogram cumulativeCorrected = corrects ? decode(proto.getCumulativeCorrected()) : null;
        Histogram windowCorrected = corrects ? decode(proto.getWindowCorrected()) : null;
        into.cumulative.add(cumulative);
        into.window.add(window);
        if (corrects) {
          into.corrected().add(cumulativeCorrected);
          into.windowCorrected.add(windowCorrected);
        }
        found = true;
      }
      return found;
    }

    List<PoolWindowState> pools() {
      return state.getPoolsList();
    }

    List<TraceSummary> traces() {
      return state.getTracesList().stream().map(ProtoViews::traceSummary).toList();
    }
  }

  /** Histograms of one operation's distribution, added up from the replicas'. */
  static final class MergedHistograms {
    private final int significantDigits;
    final Histogram cumulative;
    final Histogram window;
    Histogram cumulativeCorrected;
    Histogram windowCorrected;

    MergedHistograms(int significantDigits) {
      this.significantDigits = significantDigits;
      this.cumulative = new Histogram(significantDigits);
      this.window = new Histogram(significantDigits);
    }

    private Histogram corrected() {
      if (cumulativeCorrected == null) {
        cumulativeCorrected = new Histogram(significantDigits);
        windowCorrected = new Histogram(significantDigits);
      }
      return cumulativeCorrected;
    }

    DistributionService.Merged merged() {
      return new DistributionService.Merged(cumulative, window, cumulativeCorrected,
          windowCorrected);
    }
  }

  static DistributionKind kind(Kind kind) {
    return switch (kind) {
      case SELF_TIME -> DistributionKind.DISTRIBUTION_KIND_SELF_TIME;
      case CRITICAL_PATH -> DistributionKind.DISTRIBUTION_KIND_CRITICAL_PATH;
      default -> DistributionKind.DISTRIBUTION_KIND_DURATION;
    };
  }

  private static ByteString encode(AbstractHistogram histogram) {
    return ByteString.copyFrom(DistributionView.encode(histogram));
  }

  private static Histogram decode(ByteString encoded) throws DataFormatException {
    return Histogram.decodeFromCompressedByteBuffer(encoded.asReadOnlyByteBuffer(), 0);
  }
}
