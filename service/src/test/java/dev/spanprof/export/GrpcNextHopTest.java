package dev.spanprof.export;

import dev.spanprof.assembly.ManualTimeSource;
import dev.spanprof.assembly.TraceAssembler;
import dev.spanprof.testing.GrpcOtlpReceiver;
import dev.spanprof.testing.Meters;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.ApplicationContext;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;

/**
 * A service on manual time that forwards to a plain gRPC next hop of its own: the receiver, the
 * beans forwarding tests look at, and what they do between requests. Subclasses give their
 * configuration ({@link #configuration}) and are {@code @MicronautTest}s on manual time
 * ({@code test.time=manual}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class GrpcNextHopTest implements TestPropertyProvider {

  final GrpcOtlpReceiver receiver = GrpcOtlpReceiver.plaintext();

  @Inject ApplicationContext context;
  @Inject ManualTimeSource time;
  @Inject TraceAssembler assembler;
  @Inject Forwarder forwarder;
  @Inject MeterRegistry registry;

  GrpcNextHopTest() throws IOException {}

  /** This test's keys, besides the next hop's endpoint. */
  abstract Map<String, String> configuration();

  @Override
  public final Map<String, String> getProperties() {
    Map<String, String> properties = new HashMap<>(configuration());
    properties.put("spanprof.export.endpoint", "http://localhost:" + receiver.port());
    return properties;
  }

  @AfterAll
  void stopReceiver() throws InterruptedException {
    receiver.close();
  }

  /** Moves time past the trace timeout and completes every trace that is due. */
  void complete() {
    time.advance(Duration.ofSeconds(5));
    assembler.sweep();
  }

  Meters meters() {
    return new Meters(registry);
  }
}
