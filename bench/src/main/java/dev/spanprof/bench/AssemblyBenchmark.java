package dev.spanprof.bench;

import dev.spanprof.assembly.AssemblyListener;
import dev.spanprof.assembly.AssemblyPolicy;
import dev.spanprof.assembly.OfferResult;
import dev.spanprof.assembly.TraceAssembler;
import dev.spanprof.ingest.BenchSpans;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.time.TimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Trace assembly: buffering 512-span requests of 20-span traces by trace id. The buffer is
 * bounded at 100 000 spans, so in the steady state every request also evicts the oldest
 * traces to a hand-off that takes everything. Reported per span.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AssemblyBenchmark {

  private final List<List<SpanRecord>> requests = new ArrayList<>();
  private TraceAssembler assembler;
  private int next;

  @Setup
  public void setUp() {
    Workload workload = new Workload(20, 512);
    for (int i = 0; i < 64; i++) {
      requests.add(BenchSpans.map(workload.request(1_700_000_000_000_000_000L)));
    }
    assembler = new TraceAssembler(new AssemblyPolicy(Duration.ofSeconds(5), Duration.ofSeconds(60),
        100_000, 100_000, 100_000), TimeSource.system(), trace -> true, AssemblyListener.NOOP);
  }

  @Benchmark
  @OperationsPerInvocation(512)
  public OfferResult offer() {
    // The same 64 requests cycle: their traces arrive again, late, as fragments; realistic
    // enough for the cost of hashing, sharding and buffering.
    return assembler.offer(requests.get(next++ & 63));
  }
}
