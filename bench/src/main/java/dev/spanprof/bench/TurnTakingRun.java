package dev.spanprof.bench;

import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Two builds of one benchmark compared in two JVMs that take turns: each runs the benchmark for
 * a slice of time while the other waits for the turn, handed over through a pair of named pipes
 * ({@code bench/turns.sh} makes them and starts both sides).
 *
 * <p>Why: on the 2-core machines this project is measured on, one build's JMH medians spread over
 * a factor of two between runs minutes apart, so {@code ab.sh}'s alternating runs cannot see a
 * change of a few percent. Slices a fifth of a second apart see the same machine, and the median
 * of the per-turn ratios of new to base ignores the slices a collector pause or the window
 * advance lands in.
 *
 * <p>Usage: {@code run A|B TO_PIPE FROM_PIPE SLICE_MS SLICES OUT_FILE CLASS [name=value ...]}
 * runs one side (A takes the first turn) of the class's one {@link Benchmark} method, or the
 * one {@code benchmark=NAME} names, which must take no arguments and have trial set-ups only, writing each slice's nanoseconds per
 * operation to OUT_FILE; {@code compare BASE_FILE NEW_FILE WARMUP_SLICES} prints the comparison.
 */
public final class TurnTakingRun {

  private TurnTakingRun() {}

  public static void main(String[] args) throws Exception {
    switch (args.length > 0 ? args[0] : "") {
      case "run" -> {
        // A benchmark's application context may leave non-daemon threads behind, so the side
        // exits either way: a failed side that lived on would keep the script waiting for it.
        int status = 0;
        try {
          runSide(args);
        } catch (Exception e) {
          e.printStackTrace();
          status = 1;
        }
        System.exit(status);
      }
      case "compare" -> System.out.println(Comparison.of(read(Path.of(args[1])),
          read(Path.of(args[2])), Integer.parseInt(args[3])));
      default -> {
        System.err.println("usage: run A|B TO_PIPE FROM_PIPE SLICE_MS SLICES OUT_FILE CLASS"
            + " [name=value ...] | compare BASE_FILE NEW_FILE WARMUP_SLICES");
        System.exit(2);
      }
    }
  }

  private static void runSide(String[] args) throws Exception {
    boolean first = args[1].equals("A");
    long sliceNanos = Long.parseLong(args[4]) * 1_000_000L;
    int slices = Integer.parseInt(args[5]);
    Subject subject = Subject.of(Class.forName(args[7]),
        Arrays.asList(args).subList(8, args.length));
    double[] nanosPerOperation;
    // Opened in opposite orders on the two sides: opening a pipe waits for its other end.
    if (first) {
      try (OutputStream toOther = new FileOutputStream(args[2]);
          InputStream fromOther = new FileInputStream(args[3])) {
        nanosPerOperation = subject.takeTurns(fromOther, toOther, true, sliceNanos, slices).nanos;
      }
    } else {
      try (InputStream fromOther = new FileInputStream(args[3]);
          OutputStream toOther = new FileOutputStream(args[2])) {
        nanosPerOperation = subject.takeTurns(fromOther, toOther, false, sliceNanos, slices).nanos;
      }
    }
    subject.tearDown();
    try (PrintStream out = new PrintStream(new FileOutputStream(args[6]))) {
      for (double nanos : nanosPerOperation) {
        out.println(nanos);
      }
    }
  }

  private static double[] read(Path file) throws IOException {
    return Files.readAllLines(file).stream().mapToDouble(Double::parseDouble).toArray();
  }

  /** A benchmark instance, set up, and its method. */
  static final class Subject {
    private final Object instance;
    private final Method benchmark;
    private final int operationsPerCall;

    private Subject(Object instance, Method benchmark, int operationsPerCall) {
      this.instance = instance;
      this.benchmark = benchmark;
      this.operationsPerCall = operationsPerCall;
    }

    /**
     * An instance of {@code type} with its {@link Param} fields set (each to its first listed
     * value unless {@code settings} has {@code name=value}), set up; its benchmark method the
     * one {@code benchmark=NAME} names, or its only one.
     */
    static Subject of(Class<?> type, List<String> settings) throws Exception {
      Object instance = type.getConstructor().newInstance();
      for (Field field : type.getFields()) {
        Param param = field.getAnnotation(Param.class);
        if (param != null) {
          String value = param.value().length > 0 ? param.value()[0] : null;
          for (String setting : settings) {
            if (setting.startsWith(field.getName() + "=")) {
              value = setting.substring(field.getName().length() + 1);
            }
          }
          field.set(instance, convert(value, field.getType()));
        }
      }
      String chosen = settings.stream().filter(setting -> setting.startsWith("benchmark="))
          .map(setting -> setting.substring("benchmark=".length())).findFirst().orElse(null);
      Method benchmark = null;
      for (Method method : type.getMethods()) {
        Setup setup = method.getAnnotation(Setup.class);
        if (setup != null) {
          // A set-up per iteration or call would run once here, and the turns measure something
          // other than what JMH does.
          if (setup.value() != Level.Trial) {
            throw new IllegalArgumentException(type.getName() + "." + method.getName()
                + " sets up per " + setup.value() + "; turns run trial set-ups only");
          }
          method.invoke(instance);
        }
        if (method.isAnnotationPresent(Benchmark.class)
            && (chosen == null || chosen.equals(method.getName()))) {
          if (benchmark != null || method.getParameterCount() != 0) {
            throw new IllegalArgumentException(type.getName() + " needs exactly one benchmark "
                + "method without arguments, or benchmark=NAME to choose one");
          }
          benchmark = method;
        }
      }
      if (benchmark == null) {
        throw new IllegalArgumentException(type.getName() + " has no benchmark method"
            + (chosen == null ? "" : " " + chosen));
      }
      OperationsPerInvocation operations = benchmark.getAnnotation(OperationsPerInvocation.class);
      return new Subject(instance, benchmark, operations == null ? 1 : operations.value());
    }

    private static Object convert(String value, Class<?> type) {
      if (type == int.class) {
        return Integer.parseInt(value);
      }
      if (type == long.class) {
        return Long.parseLong(value);
      }
      if (type == boolean.class) {
        return Boolean.parseBoolean(value);
      }
      if (type == String.class) {
        return value;
      }
      throw new IllegalArgumentException("unsupported @Param type " + type);
    }

    /**
     * Runs {@code slices} slices, each after the other side hands over the turn (but the first
     * side's first), handing it back after each but the last.
     */
    Turns takeTurns(InputStream fromOther, OutputStream toOther, boolean first, long sliceNanos,
        int slices) throws Exception {
      Turns turns = new Turns(slices);
      for (int slice = 0; slice < slices; slice++) {
        if ((slice > 0 || !first) && fromOther.read() < 0) {
          throw new IOException("the other side stopped after " + slice + " slices");
        }
        long startNanos = System.nanoTime();
        long deadline = startNanos + sliceNanos;
        long calls = 0;
        long now;
        do {
          // The clock read every few calls, not every call: it costs about 25 ns.
          for (int k = 0; k < 16; k++) {
            benchmark.invoke(instance);
          }
          calls += 16;
        } while ((now = System.nanoTime()) < deadline);
        turns.startNanos[slice] = startNanos;
        turns.endNanos[slice] = now;
        turns.nanos[slice] = (now - startNanos) / ((double) calls * operationsPerCall);
        if (slice + 1 < slices || first) {
          toOther.write(1);
          toOther.flush();
        }
      }
      return turns;
    }

    Object instance() {
      return instance;
    }

    void tearDown() throws Exception {
      for (Method method : instance.getClass().getMethods()) {
        if (method.isAnnotationPresent(TearDown.class)) {
          method.invoke(instance);
        }
      }
    }
  }

  /** One side's slices: when each ran, and its nanoseconds per operation. */
  static final class Turns {
    final long[] startNanos;
    final long[] endNanos;
    final double[] nanos;

    Turns(int slices) {
      startNanos = new long[slices];
      endNanos = new long[slices];
      nanos = new double[slices];
    }
  }

  /**
   * Base against new, slice by slice after the warm-up: the median of new / base over turns
   * taken one after the other, with its 95 % confidence interval, and each side's median.
   *
   * <p>The interval is the median's distribution-free one: the ratios whose ranks lie 1.96 √n / 2
   * either side of the middle. It assumes the turns independent, which they are not quite (the
   * machine's slow phases last seconds), so a difference should hold in repeated runs too.
   */
  record Comparison(int turns, double baseMedian, double newMedian, double ratioMedian,
      double ratioLow, double ratioHigh) {

    static Comparison of(double[] base, double[] next, int warmupSlices) {
      int turns = Math.min(base.length, next.length) - warmupSlices;
      if (turns < 1) {
        throw new IllegalArgumentException("no slices after the warm-up");
      }
      double[] ratios = new double[turns];
      for (int i = 0; i < turns; i++) {
        ratios[i] = next[warmupSlices + i] / base[warmupSlices + i];
      }
      Arrays.sort(ratios);
      int reach = (int) Math.ceil(1.96 * Math.sqrt(turns) / 2);
      return new Comparison(turns, median(base, warmupSlices, turns),
          median(next, warmupSlices, turns), middle(ratios),
          ratios[Math.max(0, (turns - 1) / 2 - reach)],
          ratios[Math.min(turns - 1, turns / 2 + reach)]);
    }

    private static double median(double[] values, int from, int count) {
      double[] sorted = Arrays.copyOfRange(values, from, from + count);
      Arrays.sort(sorted);
      return middle(sorted);
    }

    private static double middle(double[] sorted) {
      int n = sorted.length;
      return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "%d turns: base median %.0f ns/op, new median %.0f ns/op;"
          + " new/base per turn: median %.3f (95 %% interval %.3f-%.3f)", turns, baseMedian,
          newMedian, ratioMedian, ratioLow, ratioHigh);
    }
  }
}
