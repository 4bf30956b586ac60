package dev.spanprof.bench;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Sends OTLP/gRPC traffic to spanprof (or to the decode-only sink) from concurrent streams, flat
 * out or at a fixed rate, for a fixed time, and reports what was accepted.
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.spanprof.bench.LoadGenerator \
 *     --target=localhost:4317 --streams=4 --duration=30s [--warmup=30s] [--rate=100000] [--compare]
 * </pre>
 *
 * Options: {@code --target} host:port of spanprof's gRPC port; {@code --metrics} its
 * /metrics URL (default the target host, port 9464); {@code --streams}; {@code --duration};
 * {@code --warmup} load sent first and not counted (default none), as JMH warms up, so that
 * the figures are the steady state rather than the JIT compiling and the buffers filling;
 * {@code --rate} total spans per second, 0 for flat out; {@code --spans-per-request} (512);
 * {@code --spans-per-trace} (20); {@code --sink} to load an in-process decode-only sink
 * instead; {@code --compare} to load the sink first and then the target, and print the ratio.
 */
public final class LoadGenerator {

  // The server counters scraped around a run.
  private static final String RECEIVED = "spanprof_received_spans_total";
  private static final String COMPLETED = "spanprof_completed_spans_total";
  private static final String EXPORTED = "spanprof_exported_spans_total";
  private static final String EXPORT_FAILED = "spanprof_export_failed_spans_total";
  /** Byte ranges the span store had no room for: each an array of its own, for the collector. */
  private static final String STORE_OVERFLOWS = "spanprof_span_store_overflow_total";
  private static final List<String> COUNTERS = List.of(RECEIVED, "spanprof_refused_spans_total",
      "spanprof_buffered_spans", COMPLETED, "spanprof_traces_total", EXPORTED, EXPORT_FAILED,
      STORE_OVERFLOWS);

  /** What one run is asked to do. */
  public record Options(String host, int port, int streams, Duration duration, long rate,
      int spansPerRequest, int spansPerTrace) {}

  /** What one run achieved. */
  public record Result(long acceptedSpans, long refusedSpans, long errors, Duration elapsed,
      Histogram latencyMicros, double bytesPerSpan) {

    public double acceptedPerSecond() {
      return acceptedSpans / (elapsed.toNanos() / 1e9);
    }
  }

  private LoadGenerator() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> flags = flags(args);
    String[] target = flags.getOrDefault("target", "localhost:4317").split(":");
    Options options = new Options(target[0], Integer.parseInt(target[1]),
        Integer.parseInt(flags.getOrDefault("streams", "4")),
        parseDuration(flags.getOrDefault("duration", "30s")),
        Long.parseLong(flags.getOrDefault("rate", "0")),
        Integer.parseInt(flags.getOrDefault("spans-per-request", "512")),
        Integer.parseInt(flags.getOrDefault("spans-per-trace", "20")));
    Duration warmup = parseDuration(flags.getOrDefault("warmup", "0s"));
    String metrics = flags.getOrDefault("metrics", "http://" + options.host() + ":9464/metrics");
    if (flags.containsKey("sink") || flags.containsKey("compare")) {
      try (DecodeOnlySink sink = new DecodeOnlySink(0)) {
        Options sinkOptions = new Options("localhost", sink.port(), options.streams(),
            options.duration(), options.rate(), options.spansPerRequest(), options.spansPerTrace());
        warmUp(sinkOptions, warmup);
        Result limit = run(sinkOptions);
        print("decode-only sink", options, limit);
        if (flags.containsKey("compare")) {
          SpanprofRun spanprof = loadSpanprof(options, warmup, metrics);
          System.out.printf(Locale.ROOT, "ratio spanprof / sink: %.1f %% accepted", 100
              * spanprof.result().acceptedPerSecond() / limit.acceptedPerSecond());
          if (spanprof.forwardedPerSecond() > 0) {
            System.out.printf(Locale.ROOT, ", %.1f %% forwarded",
                100 * spanprof.forwardedPerSecond() / limit.acceptedPerSecond());
          }
          System.out.println();
        }
      }
      return;
    }
    if (flags.containsKey("progress")) {
      print("target", options, run(options, System.out));
      return;
    }
    loadSpanprof(options, warmup, metrics);
  }

  /** A run against spanprof, and what the server forwarded per second meanwhile. */
  private record SpanprofRun(Result result, double forwardedPerSecond) {}

  /**
   * Warms spanprof up, runs the load, and prints it with the server's counters, scraped before
   * and after the run.
   */
  private static SpanprofRun loadSpanprof(Options options, Duration warmup, String metrics)
      throws InterruptedException {
    warmUp(options, warmup);
    Map<String, Double> before = scrape(metrics);
    Result result = run(options);
    Map<String, Double> after = scrape(metrics);
    print("spanprof", options, result);
    double forwardedPerSecond = printServer(before, after, result.elapsed());
    return new SpanprofRun(result, forwardedPerSecond);
  }

  /**
   * Sends the load for {@code warmup}, to leave out of the figures; returns the spans accepted
   * meanwhile (0 for a zero warm-up, which sends nothing).
   */
  static long warmUp(Options options, Duration warmup) throws InterruptedException {
    if (warmup.isZero()) {
      return 0;
    }
    Result result = run(new Options(options.host(), options.port(), options.streams(), warmup,
        options.rate(), options.spansPerRequest(), options.spansPerTrace()));
    System.out.printf(Locale.ROOT, "  warm-up %s to %s:%d: %.0f spans/s, not counted%n",
        warmup, options.host(), options.port(), result.acceptedPerSecond());
    return result.acceptedSpans();
  }

  /** Runs the load and returns what was accepted. */
  public static Result run(Options options) throws InterruptedException {
    return run(options, null);
  }

  /**
   * Runs the load and returns what was accepted, printing the spans accepted so far to {@code
   * progress} every second, unless it is null.
   */
  static Result run(Options options, PrintStream progress) throws InterruptedException {
    ManagedChannel channel = NettyChannelBuilder.forAddress(options.host(), options.port())
        .usePlaintext().maxInboundMessageSize(16 * 1024 * 1024).build();
    Workload workload = new Workload(options.spansPerTrace(), options.spansPerRequest());
    LongAdder accepted = new LongAdder();
    LongAdder refused = new LongAdder();
    LongAdder errors = new LongAdder();
    LongAdder bytes = new LongAdder();
    LongAdder requests = new LongAdder();
    Recorder latency = new Recorder(3);
    long start = System.nanoTime();
    long end = start + options.duration().toNanos();
    // Each stream keeps its share of the rate by sending on a schedule, not in bursts.
    long intervalNanos = options.rate() <= 0 ? 0
        : (long) (1e9 * options.spansPerRequest() * options.streams() / options.rate());
    List<Thread> streams = new ArrayList<>();
    for (int s = 0; s < options.streams(); s++) {
      Thread stream = new Thread(() -> {
        long next = System.nanoTime();
        while (System.nanoTime() < end) {
          byte[] request = workload.request(System.currentTimeMillis() * 1_000_000L).toByteArray();
          bytes.add(request.length);
          requests.increment();
          long sent = System.nanoTime();
          try {
            ExportTraceServiceResponse response = ClientCalls.blockingUnaryCall(channel,
                RawBytesMarshaller.TRACE_EXPORT,
                CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS), request);
            long rejected = response.getPartialSuccess().getRejectedSpans();
            accepted.add(options.spansPerRequest() - rejected);
            refused.add(rejected);
          } catch (StatusRuntimeException e) {
            Status.Code code = e.getStatus().getCode();
            if (code == Status.Code.RESOURCE_EXHAUSTED || code == Status.Code.UNAVAILABLE) {
              refused.add(options.spansPerRequest());
            } else {
              errors.increment();
            }
          }
          latency.recordValue(Math.max(1, (System.nanoTime() - sent) / 1000));
          if (intervalNanos > 0) {
            next += intervalNanos;
            long wait = next - System.nanoTime();
            if (wait > 0) {
              LockSupport.parkNanos(wait);
            }
          }
        }
      }, "load-" + s);
      stream.start();
      streams.add(stream);
    }
    for (Thread stream : streams) {
      while (progress != null && stream.isAlive()) {
        stream.join(1000);
        printProgress(progress, start, accepted);
      }
      stream.join();
    }
    if (progress != null) {
      printProgress(progress, start, accepted);
    }
    Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
    channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    long sentSpans = requests.sum() * options.spansPerRequest();
    return new Result(accepted.sum(), refused.sum(), errors.sum(), elapsed,
        latency.getIntervalHistogram(), sentSpans == 0 ? 0 : (double) bytes.sum() / sentSpans);
  }

  private static void printProgress(PrintStream progress, long startNanos, LongAdder accepted) {
    progress.printf(Locale.ROOT, "progress %.3f %d%n", (System.nanoTime() - startNanos) / 1e9,
        accepted.sum());
    progress.flush();
  }

  private static void print(String name, Options options, Result result) {
    Histogram latency = result.latencyMicros();
    System.out.printf(Locale.ROOT, "%s: %d streams, %s, %s, %d spans/request, %d spans/trace, "
            + "%.0f bytes/span encoded%n", name, options.streams(), options.duration(),
        options.rate() <= 0 ? "flat out" : options.rate() + " spans/s", options.spansPerRequest(),
        options.spansPerTrace(), result.bytesPerSpan());
    System.out.printf(Locale.ROOT, "  accepted %d spans (%.0f spans/s), refused %d, errors %d%n",
        result.acceptedSpans(), result.acceptedPerSecond(), result.refusedSpans(), result.errors());
    System.out.printf(Locale.ROOT, "  export latency ms: p50 %.2f  p90 %.2f  p99 %.2f  max %.2f%n",
        latency.getValueAtPercentile(50) / 1000.0, latency.getValueAtPercentile(90) / 1000.0,
        latency.getValueAtPercentile(99) / 1000.0, latency.getMaxValue() / 1000.0);
  }

  /**
   * What the server did with spans during the run, from its counters scraped before and after:
   * above all what it forwarded, since a span accepted and then given up on the way to the next
   * hop (its queue full) is not carried through. Spans wait up to the trace timeout before they
   * are forwarded, so in the steady state the window lags the run's by that much; its rate is the
   * same. The span store's overflows say whether the run measured spans in arrays of their own,
   * which the collector copies, rather than in the store's ({@code bench/store-use.sh}).
   * Then the counters since the server started. Returns the forwarded spans per second (0
   * when the counters could not be scraped).
   */
  private static double printServer(Map<String, Double> before, Map<String, Double> after,
      Duration elapsed) {
    if (before.isEmpty() || after.isEmpty()) {
      System.out.println("  server counters unavailable, nothing said about forwarding");
      return 0;
    }
    double forwardedPerSecond = delta(before, after, EXPORTED) / (elapsed.toNanos() / 1e9);
    System.out.printf(Locale.ROOT, "  server in the run: received %.0f, forwarded %.0f spans "
            + "(%.0f spans/s), gave up forwarding %.0f, analysed %.0f, "
            + "span-store overflows %.0f%n",
        delta(before, after, RECEIVED), delta(before, after, EXPORTED), forwardedPerSecond,
        delta(before, after, EXPORT_FAILED), delta(before, after, COMPLETED),
        delta(before, after, STORE_OVERFLOWS));
    StringBuilder line = new StringBuilder("  server (since it started):");
    after.forEach((name, value) -> line.append(' ').append(name).append('=')
        .append(String.format(Locale.ROOT, "%.0f", value)));
    System.out.println(line);
    return forwardedPerSecond;
  }

  private static double delta(Map<String, Double> before, Map<String, Double> after,
      String metric) {
    return after.getOrDefault(metric, 0.0) - before.getOrDefault(metric, 0.0);
  }

  /**
   * The server's counters of what it received, refused, buffered, analysed and forwarded, each
   * summed over its labels; empty when the server cannot be scraped.
   */
  static Map<String, Double> scrape(String metricsUrl) {
    String scrape;
    try {
      scrape = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create(metricsUrl)).build(),
          HttpResponse.BodyHandlers.ofString()).body();
    } catch (IOException e) {
      System.err.println("cannot scrape " + metricsUrl + ": " + e);
      return Map.of();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Map.of();
    }
    Map<String, Double> sums = new LinkedHashMap<>();
    for (String name : COUNTERS) {
      sums.put(name, sum(scrape, name));
    }
    return sums;
  }

  /** The sum of every sample of {@code metric} in a Prometheus text scrape. */
  public static double sum(String scrape, String metric) {
    double total = 0;
    for (String line : scrape.split("\n")) {
      if (line.startsWith(metric + "{") || line.startsWith(metric + " ")) {
        total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return total;
  }

  static Map<String, String> flags(String[] args) {
    Map<String, String> flags = new LinkedHashMap<>();
    for (String arg : args) {
      if (!arg.startsWith("--")) {
        throw new IllegalArgumentException("options look like --name=value, got '" + arg + "'");
      }
      int equals = arg.indexOf('=');
      flags.put(equals < 0 ? arg.substring(2) : arg.substring(2, equals),
          equals < 0 ? "" : arg.substring(equals + 1));
    }
    return flags;
  }

  static Duration parseDuration(String text) {
    return Duration.parse("PT" + text.toUpperCase(Locale.ROOT));
  }
}
