package dev.spanprof.export;

import dev.spanprof.testing.GrpcOtlpReceiver;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.TestInstance;

/** Forwarding over OTLP/gRPC (gzip) to a plain grpc-java TraceService. */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Property(name = "test.time", value = "manual")
@Property(name = "test.profiles", value = "recording")
class GrpcForwardingTest extends ForwardingContract implements TestPropertyProvider {

  GrpcForwardingTest() throws IOException {
    super(GrpcOtlpReceiver.plaintext());
  }

  @Override
  public Map<String, String> getProperties() {
    return Map.of(
        "spanprof.export.endpoint", "http://localhost:" + receiver.port(),
        "spanprof.export.protocol", "grpc",
        "spanprof.export.flush-interval", "10ms");
  }
}
