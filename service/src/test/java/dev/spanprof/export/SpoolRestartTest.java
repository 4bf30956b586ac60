package dev.spanprof.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.assembly.ManualTimeSource;
import dev.spanprof.assembly.TraceAssembler;
import dev.spanprof.span.TraceId;
import dev.spanprof.testing.GrpcOtlpReceiver;
import dev.spanprof.testing.Meters;
import dev.spanprof.testing.Otlp;
import dev.spanprof.testing.OtlpReceiver.Received;
import dev.spanprof.testing.TestTraffic;
import io.grpc.Status;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.env.Environment;
import io.micronaut.runtime.server.EmbeddedServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What spanprof acknowledged survives its end while the next hop is down: a stop whose shutdown
 * timeout passes, and {@code kill -9}. The next start forwards every span from the spool.
 */
class SpoolRestartTest {

  private static final int TRACES = 5;
  private static final int SPANS_PER_TRACE = 10;
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private final GrpcOtlpReceiver receiver;
  @TempDir Path spool;

  SpoolRestartTest() throws Exception {
    receiver = GrpcOtlpReceiver.plaintext();
  }

  @AfterEach
  void stopReceiver() throws InterruptedException {
    receiver.close();
  }

  @Test
  void stoppedWhileTheNextHopIsDown_nextStartForwardsEverySpan() throws Exception {
    receiver.failWith(request -> Status.UNAVAILABLE.withDescription("down"));
    try (EmbeddedServer first = start(Map.of("spanprof.shutdown-timeout", "1s"))) {
      for (int t = 1; t <= TRACES; t++) {
        assertThat(TestTraffic.postProtobuf(first.getApplicationContext(), trace(t)))
            .isEqualTo(200);
      }
      sweep(first.getApplicationContext());
    }

    assertEverySpanForwardedOnceByANewStart();
  }

  @Test
  void killedWhileTheNextHopIsDown_nextStartForwardsEverySpan() throws Exception {
    receiver.failWith(request -> Status.UNAVAILABLE.withDescription("down"));
    Process killed = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java")
        .toString(), "-cp", System.getProperty("java.class.path"),
        "-Dmicronaut.environments=test",
        "-Dspanprof.export.endpoint=http://localhost:" + receiver.port(),
        "-Dspanprof.export.spool.directory=" + spool,
        "-Dspanprof.assembly.trace-timeout=100ms",
        "dev.spanprof.Application")
        .redirectErrorStream(true).start();
    try {
      int httpPort = httpPortOf(killed);
      HttpClient http = HttpClient.newHttpClient();
      for (int t = 1; t <= TRACES; t++) {
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(
                URI.create("http://localhost:" + httpPort + "/v1/traces"))
            .header("Content-Type", "application/x-protobuf")
            .POST(HttpRequest.BodyPublishers.ofByteArray(trace(t).toByteArray())).build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
      }
    } finally {
      killed.destroyForcibly(); // SIGKILL: no shutdown hook, no drain
      assertThat(killed.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }

    assertEverySpanForwardedOnceByANewStart();
  }

  private void assertEverySpanForwardedOnceByANewStart() throws Exception {
    receiver.failWith(request -> null);
    try (EmbeddedServer server = start(Map.of())) {
      ApplicationContext second = server.getApplicationContext();
      Meters meters = new Meters(second.getBean(MeterRegistry.class));
      assertThat(meters.count("spanprof.spool.recovered.spans"))
          .isEqualTo(TRACES * SPANS_PER_TRACE);
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (meters.count("spanprof.exported.spans") < TRACES * SPANS_PER_TRACE) {
        assertThat(System.nanoTime()).as("forwarded in time").isLessThan(deadline);
        sweep(second);
      }
      List<Received> received = receiver.await(span -> true, TRACES * SPANS_PER_TRACE, TIMEOUT);
      Set<String> distinct = new HashSet<>();
      received.forEach(span -> distinct.add(span.span().getTraceId() + "/"
          + span.span().getSpanId()));
      assertThat(distinct).hasSize(TRACES * SPANS_PER_TRACE);
    }
  }

  private EmbeddedServer start(Map<String, Object> more) {
    Map<String, Object> properties = new HashMap<>(more);
    properties.put("test.time", "manual");
    properties.put("test.profiles", "recording");
    properties.put("spanprof.export.endpoint", "http://localhost:" + receiver.port());
    properties.put("spanprof.export.flush-interval", "10ms");
    properties.put("spanprof.export.initial-backoff", "10ms");
    properties.put("spanprof.export.spool.directory", spool.toString());
    return ApplicationContext.run(EmbeddedServer.class, properties, Environment.TEST);
  }

  private static void sweep(ApplicationContext context) {
    context.getBean(ManualTimeSource.class).advance(Duration.ofSeconds(5));
    context.getBean(TraceAssembler.class).sweep();
  }

  private static ExportTraceServiceRequest trace(int t) {
    return Otlp.rootAndChildren("svc", new TraceId(0x5F002, t), SPANS_PER_TRACE);
  }

  /**
   * The port the process's HTTP server took, as its log says; the log is read to its end on a
   * thread of its own, so that the process never blocks on a full pipe.
   */
  private static int httpPortOf(Process process) throws Exception {
    Pattern running = Pattern.compile("the UI on http://[^:]+:(\\d+)/");
    CompletableFuture<Integer> port = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      try (BufferedReader log = new BufferedReader(
          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line = log.readLine(); line != null; line = log.readLine()) {
          Matcher matcher = running.matcher(line);
          if (matcher.find()) {
            port.complete(Integer.parseInt(matcher.group(1)));
          }
        }
      } catch (IOException ended) {
        // the process is gone
      }
      port.completeExceptionally(
          new IllegalStateException("spanprof ended before its HTTP server started"));
    }, "spanprof-subprocess-log");
    reader.setDaemon(true);
    reader.start();
    return port.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
  }
}
