package dev.spanprof.api;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import dev.spanprof.analysis.distribution.Distribution;
import dev.spanprof.analysis.distribution.DistributionRegistry.Kind;
import dev.spanprof.analysis.ranking.CallRanking;
import dev.spanprof.analysis.ranking.RankingState;
import dev.spanprof.analysis.tail.TailState;
import dev.spanprof.analysis.tail.TailWindow;
import dev.spanprof.span.Operation;
import dev.spanprof.stages.DistributionService;
import dev.spanprof.v1.State;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;


/**
 * What a fleet query costs per replica's state (docs/fleet.md): a peer summing its window's
 * slices and writing its ranking or tail state as protobuf ({@code answer…}), and the replica
 * asked reading and merging it into the fleet's window ({@code merge…}). {@code series} (root,
 * operation) series, under 100 roots, each in every one of the window's 10 slices with 16
 * distinct duration indexes and 2 callees (the ranking), or 12 occupied 5 % duration buckets (the
 * tail). Per series: the score divided by {@code series}. {@link #main} prints the states' sizes,
 * every slice apart and summed, and that of as many operations' duration distributions.
 *
 * <p>{@code java -jar bench/target/benchmarks.jar FleetStateBenchmark}; sizes: {@code java -cp
 * bench/target/benchmarks.jar dev.spanprof.api.FleetStateBenchmark [series]}
 */
@org.openjdk.jmh.annotations.State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class FleetStateBenchmark {

  static final Duration WINDOW = Duration.ofMinutes(5);
  private static final int ROOTS = 100;
  private static final int SLICES = 10;
  private static final long SLICE_NANOS = WINDOW.toNanos() / SLICES;
  private static final long FIRST_SLICE = 1_000_000;

  @Param({"10000"})
  public int series;

  /** When every slice of the states is in the window. */
  static final long NOW_NANOS = (FIRST_SLICE + SLICES) * SLICE_NANOS - 1;

  private CallRanking ranking;
  private TailWindow tail;
  private byte[] rankingBytes;
  private byte[] tailBytes;

  @Setup
  public void setUp() {
    ranking = new CallRanking(WINDOW, 1e-6, Integer.MAX_VALUE);
    ranking.merge(rankingState(series));
    tail = new TailWindow(WINDOW, Integer.MAX_VALUE, Integer.MAX_VALUE);
    tail.merge(tailState(series));
    rankingBytes = answerRanking();
    tailBytes = answerTail();
  }

  /** A peer's answer: its ranking's slices summed, written as protobuf. */
  @Benchmark
  public byte[] answerRanking() {
    return new StateProtos.Writer(0).ranking(ranking.summedState(NOW_NANOS, null)).build()
        .toByteArray();
  }

  /** A peer's answer read and merged, as the replica asked does for each peer. */
  @Benchmark
  public CallRanking mergeRanking() throws InvalidProtocolBufferException {
    CallRanking fleet = new CallRanking(WINDOW, 1e-6, Integer.MAX_VALUE);
    fleet.merge(new StateProtos.Reader(State.parseFrom(rankingBytes)).ranking());
    return fleet;
  }

  @Benchmark
  public byte[] answerTail() {
    return new StateProtos.Writer(0).tail(tail.summedState(NOW_NANOS, null)).build()
        .toByteArray();
  }

  @Benchmark
  public TailWindow mergeTail() throws InvalidProtocolBufferException {
    TailWindow fleet = new TailWindow(WINDOW, Integer.MAX_VALUE, Integer.MAX_VALUE);
    fleet.merge(new StateProtos.Reader(State.parseFrom(tailBytes)).tail());
    return fleet;
  }

  public static void main(String[] args) throws InvalidProtocolBufferException {
    int series = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    FleetStateBenchmark states = new FleetStateBenchmark();
    states.series = series;
    states.setUp();
    print("ranking state", series, "in 10 slices", SLICES,
        new StateProtos.Writer(0).ranking(rankingState(series)).build());
    print("ranking state", series, "in one summed slice", 1, State.parseFrom(states.rankingBytes));
    print("tail state", series, "in 10 slices", SLICES,
        new StateProtos.Writer(0).tail(tailState(series)).build());
    print("tail state", series, "in one summed slice", 1, State.parseFrom(states.tailBytes));
    print("duration distributions", series, "(cumulative and window)", 1,
        distributionState(series));
  }

  /**
   * {@code series} operations' duration distributions, 1 200 values each spread log-uniformly
   * over 10 µs to 10 s, as the state holds them: the cumulative and the window view encoded.
   */
  static State distributionState(int series) {
    SplittableRandom random = new SplittableRandom(5);
    StateProtos.Writer writer = new StateProtos.Writer(0);
    for (int i = 0; i < series; i++) {
      Distribution distribution = new Distribution(2, 6, new long[] {1_000_000}, 0, 0, false);
      for (int v = 0; v < 1_200; v++) {
        distribution.record((long) Math.pow(10, 4 + 6 * random.nextDouble()), null, 0, 0, 0);
      }
      Distribution.Snapshot snapshot = distribution.snapshot();
      writer.distribution(Kind.DURATION, operation(i / 100, i % 100), new DistributionService
          .Merged(snapshot.cumulative(), snapshot.window(), null, null));
    }
    return writer.build();
  }

  private static void print(String part, int series, String form, int slices, State state)
      throws InvalidProtocolBufferException {
    int bytes = state.getSerializedSize();
    int json = JsonFormat.printer().omittingInsignificantWhitespace().print(state).length();
    System.out.printf("%s of %d series %s: %,d bytes as protobuf (%.1f per series%s), %,d as "
        + "JSON%n", part, series, form, bytes, (double) bytes / series / slices,
        slices == 1 ? "" : " and slice", json);
  }

  static RankingState rankingState(int series) {
    Random random = new Random(1);
    int perRoot = Math.max(1, series / ROOTS);
    List<RankingState.Slice> slices = new ArrayList<>();
    for (int s = 0; s < SLICES; s++) {
      List<RankingState.RootSums> roots = new ArrayList<>();
      for (int r = 0; r < ROOTS; r++) {
        List<RankingState.OperationSums> operations = new ArrayList<>();
        for (int o = 0; o < perRoot; o++) {
          int[] indexes = new int[16];
          long[] counts = new long[16];
          // An operation's durations fall alike in every slice: its own range of 16 indexes.
          int first = 1500 + (r * 31 + o * 17) % 500;
          for (int i = 0; i < indexes.length; i++) {
            indexes[i] = first + i * 3;
            counts[i] = 1 + random.nextInt(50);
          }
          List<RankingState.CallSums> calls = List.of(
              new RankingState.CallSums(operation(r, (o + 1) % perRoot), 40, 4e8, 20_000_000),
              new RankingState.CallSums(operation(r, (o + 7) % perRoot), 12, 1.2e8, 15_000_000));
          operations.add(new RankingState.OperationSums(operation(r, o), 400, 3,
              new RankingState.Moments(4e9, 5e16, 1_000_000, 90_000_000),
              new RankingState.Moments(1e9, 4e15, 10_000, 20_000_000), 2_000_000_000L,
              indexes, counts, calls));
        }
        roots.add(new RankingState.RootSums(operation(r, 0), 40_000_000_000L, operations));
      }
      slices.add(new RankingState.Slice(FIRST_SLICE + s, roots, null));
    }
    return new RankingState(SLICE_NANOS, slices);
  }

  static TailState tailState(int series) {
    int perRoot = Math.max(1, series / ROOTS);
    List<TailState.RootState> roots = new ArrayList<>();
    for (int r = 0; r < ROOTS; r++) {
      List<Operation> operations = new ArrayList<>();
      for (int o = 0; o < perRoot; o++) {
        operations.add(operation(r, o));
      }
      List<TailState.Slice> slices = new ArrayList<>();
      for (int s = 0; s < SLICES; s++) {
        List<TailState.Bucket> buckets = new ArrayList<>();
        for (int b = 0; b < 12; b++) {
          long[] operationNanos = new long[perRoot];
          Arrays.fill(operationNanos, 1_000_000L * (b + 1));
          buckets.add(new TailState.Bucket(300 + b, 20, 400_000_000L * (b + 1), operationNanos,
              new long[] {300_000_000L, 100_000_000L}));
        }
        slices.add(new TailState.Slice(FIRST_SLICE + s, buckets));
      }
      roots.add(new TailState.RootState(operation(r, 0), operations,
          List.of("running", "wait.db"), slices));
    }
    return new TailState(SLICE_NANOS, roots);
  }

  private static Operation operation(int root, int operation) {
    return new Operation("service-" + root, "operation-" + operation);
  }
}
