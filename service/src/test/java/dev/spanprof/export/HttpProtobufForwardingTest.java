package dev.spanprof.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.testing.HttpOtlpReceiver;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;

/** Forwarding over OTLP/HTTP with protobuf bodies, zstd. */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Property(name = "test.time", value = "manual")
@Property(name = "test.profiles", value = "recording")
class HttpProtobufForwardingTest extends ForwardingContract implements TestPropertyProvider {

  HttpProtobufForwardingTest() throws IOException {
    super(new HttpOtlpReceiver());
  }

  @Override
  public Map<String, String> getProperties() {
    return Map.of(
        "spanprof.export.endpoint", "http://localhost:" + receiver.port(),
        "spanprof.export.protocol", "http/protobuf",
        "spanprof.export.compression", "zstd",
        "spanprof.export.flush-interval", "10ms");
  }

  @AfterAll
  void everyRequestWasZstdProtobuf() {
    assertThat(((HttpOtlpReceiver) receiver).contentTypes()).isNotEmpty()
        .containsOnly("application/x-protobuf");
    assertThat(((HttpOtlpReceiver) receiver).contentEncodings()).containsOnly("zstd");
  }
}
