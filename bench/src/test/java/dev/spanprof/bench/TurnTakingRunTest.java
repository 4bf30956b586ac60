package dev.spanprof.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.spanprof.bench.TurnTakingRun.Comparison;
import dev.spanprof.bench.TurnTakingRun.Subject;
import dev.spanprof.bench.TurnTakingRun.Turns;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

class TurnTakingRunTest {

  /** A benchmark that counts its calls, with a parameter and a set-up to check. */
  @State(Scope.Thread)
  public static class Counting {
    @Param({"3", "5"})
    public int step;
    public int setUps;
    public long total;

    @Setup
    public void setUp() {
      setUps++;
    }

    @Benchmark
    @OperationsPerInvocation(4)
    public void add() {
      total += step;
    }
  }

  @Test
  void subject_setsItsParametersAndSetsUp() throws Exception {
    Subject defaults = Subject.of(Counting.class, List.of());
    Subject set = Subject.of(Counting.class, List.of("step=5"));

    Counting first = (Counting) defaults.instance();
    Counting second = (Counting) set.instance();
    assertThat(first.step).isEqualTo(3);
    assertThat(second.step).isEqualTo(5);
    assertThat(first.setUps).isEqualTo(1);
  }

  /** Two benchmark methods, as JMH classes often have: a turn runs the one it is told to. */
  @State(Scope.Thread)
  public static class TwoMethods {
    public int firstCalls;
    public int secondCalls;

    @Benchmark
    public void first() {
      firstCalls++;
    }

    @Benchmark
    @OperationsPerInvocation(2)
    public void second() {
      secondCalls++;
    }
  }

  @Test
  void subject_ofSeveralMethods_runsTheOneNamed() throws Exception {
    Subject second = Subject.of(TwoMethods.class, List.of("benchmark=second"));

    second.takeTurns(InputStream.nullInputStream(), OutputStream.nullOutputStream(), true,
        TimeUnit.MILLISECONDS.toNanos(1), 1);

    TwoMethods instance = (TwoMethods) second.instance();
    assertThat(instance.secondCalls).isPositive();
    assertThat(instance.firstCalls).isZero();
    assertThatThrownBy(() -> Subject.of(TwoMethods.class, List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("benchmark=NAME");
    assertThatThrownBy(() -> Subject.of(TwoMethods.class, List.of("benchmark=third")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no benchmark method third");
  }

  /** A benchmark that sets up before every call, which taking turns cannot do. */
  @State(Scope.Thread)
  public static class SetUpPerCall {
    @Setup(Level.Invocation)
    public void setUp() {}

    @Benchmark
    public void run() {}
  }

  @Test
  void subject_refusesSetUpsOtherThanPerTrial() {
    assertThatThrownBy(() -> Subject.of(SetUpPerCall.class, List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("SetUpPerCall.setUp sets up per Invocation");
  }

  @Test
  void twoSides_takeTurns_neverRunningAtOnce() throws Exception {
    Subject a = Subject.of(Counting.class, List.of());
    Subject b = Subject.of(Counting.class, List.of());
    PipedOutputStream aToB = new PipedOutputStream();
    PipedInputStream bFromA = new PipedInputStream(aToB);
    PipedOutputStream bToA = new PipedOutputStream();
    PipedInputStream aFromB = new PipedInputStream(bToA);
    long sliceNanos = TimeUnit.MILLISECONDS.toNanos(2);

    // Two threads of their own: the common pool may have one, and each side waits for the other.
    ExecutorService sides = Executors.newFixedThreadPool(2);
    Future<Turns> first = sides.submit(() -> a.takeTurns(aFromB, aToB, true, sliceNanos, 5));
    Future<Turns> second = sides.submit(() -> b.takeTurns(bFromA, bToA, false, sliceNanos, 5));
    Turns aTurns = first.get(1, TimeUnit.MINUTES);
    Turns bTurns = second.get(1, TimeUnit.MINUTES);
    sides.shutdown();

    for (int slice = 0; slice < 5; slice++) {
      assertThat(aTurns.endNanos[slice]).isLessThanOrEqualTo(bTurns.startNanos[slice]);
      if (slice + 1 < 5) {
        assertThat(bTurns.endNanos[slice]).isLessThanOrEqualTo(aTurns.startNanos[slice + 1]);
      }
      assertThat(aTurns.endNanos[slice] - aTurns.startNanos[slice])
          .isGreaterThanOrEqualTo(sliceNanos);
      assertThat(aTurns.nanos[slice]).isPositive();
      assertThat(bTurns.nanos[slice]).isPositive();
    }
  }

  @Test
  void nanosPerOperation_dividesBySlicesCallsAndOperationsPerCall() throws Exception {
    Subject subject = Subject.of(Counting.class, List.of());
    // The first side's last slice hands the turn over: a sink with room for it.
    PipedOutputStream handOver = new PipedOutputStream();
    PipedInputStream unread = new PipedInputStream(handOver, 16);

    Turns turns = subject.takeTurns(InputStream.nullInputStream(), handOver, true,
        TimeUnit.MILLISECONDS.toNanos(1), 1);

    Counting counting = (Counting) subject.instance();
    long calls = counting.total / counting.step;
    double slice = turns.endNanos[0] - turns.startNanos[0];
    assertThat(calls % 16).isZero();
    assertThat(turns.nanos[0]).isCloseTo(slice / (calls * 4), within(1e-9));
    assertThat(unread.available()).isEqualTo(1);
  }

  @Test
  void comparison_takesTheMedianRatioAfterTheWarmUp() {
    // Warm-up slices of 1000 ns are left out; then new is half of base in most turns.
    double[] base = {1000, 1000, 100, 100, 100, 100, 100, 100, 100, 100, 100};
    double[] next = {1000, 1000, 50, 50, 50, 50, 50, 50, 50, 400, 100};

    Comparison comparison = Comparison.of(base, next, 2);

    assertThat(comparison.turns()).isEqualTo(9);
    assertThat(comparison.baseMedian()).isEqualTo(100);
    assertThat(comparison.newMedian()).isEqualTo(50);
    assertThat(comparison.ratioMedian()).isEqualTo(0.5);
    // 1.96 √9 / 2 rounds up to 3 ranks either side of the middle (rank 4): ranks 1 and 7.
    assertThat(comparison.ratioLow()).isEqualTo(0.5);
    assertThat(comparison.ratioHigh()).isEqualTo(1.0);
  }

  /** A benchmark whose set-up leaves a non-daemon thread behind and whose method fails. */
  @State(Scope.Thread)
  public static class FailingWithAThreadLeft {
    @Setup
    public void setUp() {
      new Thread(() -> {
        try {
          new CountDownLatch(1).await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }).start();
    }

    @Benchmark
    public void run() {
      throw new IllegalStateException("the benchmark failed");
    }
  }

  @Test
  void aFailingSide_exitsWithAnError_evenWithThreadsLeft(@TempDir Path directory) throws Exception {
    // Plain files for the pipes: the first side opens both, then fails before it reads.
    Files.createFile(directory.resolve("to-A"));
    Process side = new ProcessBuilder(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), TurnTakingRun.class.getName(), "run", "A",
        directory.resolve("to-B").toString(), directory.resolve("to-A").toString(), "10", "3",
        directory.resolve("out").toString(), FailingWithAThreadLeft.class.getName())
        .redirectErrorStream(true)
        .redirectOutput(directory.resolve("log").toFile())
        .start();

    boolean exited = side.waitFor(1, TimeUnit.MINUTES);
    side.destroyForcibly();
    String output = Files.readString(directory.resolve("log"));
    assertThat(exited).as("the side exited; its output:%n%s", output).isTrue();
    assertThat(side.exitValue()).isEqualTo(1);
    assertThat(output).contains("the benchmark failed");
    assertThat(directory.resolve("out")).doesNotExist();
  }
}
