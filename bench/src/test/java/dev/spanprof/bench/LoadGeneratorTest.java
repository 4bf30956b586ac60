package dev.spanprof.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.management.ManagementServer;
import io.micronaut.context.ApplicationContext;
import io.micronaut.grpc.server.GrpcEmbeddedServer;
import io.micronaut.runtime.server.EmbeddedServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The load generator's counts agree with what an in-process spanprof says it received, and a
 * warm-up is left out of the run's own figures.
 */
class LoadGeneratorTest {

  @Test
  void warmUpThenRun_acceptedSpansOfBothEqualTheServersReceivedCounter() throws Exception {
    // Every server picks its own port as it binds (0, or -1 for Micronaut's HTTP server): a port
    // picked beforehand can be taken before the server binds it.
    try (EmbeddedServer server = ApplicationContext.run(EmbeddedServer.class, Map.of(
        "micronaut.server.port", -1, "grpc.server.port", 0, "spanprof.management.port", 0))) {
      int grpcPort = server.getApplicationContext().getBean(GrpcEmbeddedServer.class).getPort();
      LoadGenerator.Options options = new LoadGenerator.Options(
          "localhost", grpcPort, 2, Duration.ofSeconds(1), 20_000, 64, 16);
      long warmUpSpans = LoadGenerator.warmUp(options, Duration.ofMillis(500));
      LoadGenerator.Result result = LoadGenerator.run(options);

      String metrics = "http://localhost:"
          + server.getApplicationContext().getBean(ManagementServer.class).port() + "/metrics";
      Map<String, Double> counters = LoadGenerator.scrape(metrics);
      assertThat(result.acceptedSpans()).isPositive();
      assertThat(result.refusedSpans()).isZero();
      assertThat(result.errors()).isZero();
      assertThat(warmUpSpans).isPositive();
      assertThat(counters.get("spanprof_received_spans_total"))
          .isEqualTo((double) (warmUpSpans + result.acceptedSpans()));
      // No next hop configured: nothing forwarded, nothing given up.
      assertThat(counters.get("spanprof_exported_spans_total")).isZero();
      assertThat(counters.get("spanprof_export_failed_spans_total")).isZero();
      assertThat(result.latencyMicros().getTotalCount()).isEqualTo(result.acceptedSpans() / 64);
      assertThat(result.bytesPerSpan()).isBetween(300.0, 600.0);
    }
  }

  @Test
  void runWithProgress_printsGrowingCountsEndingWithTheAcceptedSpans() throws Exception {
    try (DecodeOnlySink sink = new DecodeOnlySink(0)) {
      LoadGenerator.Options options = new LoadGenerator.Options(
          "localhost", sink.port(), 2, Duration.ofMillis(2500), 10_000, 64, 16);
      ByteArrayOutputStream printed = new ByteArrayOutputStream();
      LoadGenerator.Result result =
          LoadGenerator.run(options, new PrintStream(printed, true, StandardCharsets.UTF_8));

      List<String[]> lines = printed.toString(StandardCharsets.UTF_8).lines()
          .map(line -> line.split(" ")).toList();
      // One line a second while the streams run, one at their end.
      assertThat(lines).hasSizeGreaterThanOrEqualTo(3).allSatisfy(line -> {
        assertThat(line).hasSize(3);
        assertThat(line[0]).isEqualTo("progress");
      });
      List<Long> counts = lines.stream().map(line -> Long.parseLong(line[2])).toList();
      assertThat(counts).isSorted();
      assertThat(counts.get(counts.size() - 1)).isEqualTo(result.acceptedSpans())
          .isEqualTo(sink.spans());
      assertThat(Double.parseDouble(lines.get(lines.size() - 1)[1])).isGreaterThanOrEqualTo(2.5);
    }
  }
}
