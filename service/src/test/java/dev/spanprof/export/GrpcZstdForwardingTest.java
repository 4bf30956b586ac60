package dev.spanprof.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.testing.GrpcOtlpReceiver;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;

/**
 * Forwarding over OTLP/gRPC with zstd, the message encoding the Collector's receivers take
 * beside gzip; the request is encoded straight into the compressor, as with gzip.
 */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Property(name = "test.time", value = "manual")
@Property(name = "test.profiles", value = "recording")
class GrpcZstdForwardingTest extends ForwardingContract implements TestPropertyProvider {

  GrpcZstdForwardingTest() throws IOException {
    super(GrpcOtlpReceiver.plaintext());
  }

  @Override
  public Map<String, String> getProperties() {
    return Map.of(
        "spanprof.export.endpoint", "http://localhost:" + receiver.port(),
        "spanprof.export.protocol", "grpc",
        "spanprof.export.compression", "zstd",
        "spanprof.export.flush-interval", "10ms");
  }

  @AfterAll
  void everyRequestWasZstd() {
    assertThat(((GrpcOtlpReceiver) receiver).encodings()).containsOnly("zstd");
  }
}
