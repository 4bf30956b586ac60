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

/** Forwarding over OTLP/HTTP with JSON bodies (hex ids), gzip. */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Property(name = "test.time", value = "manual")
@Property(name = "test.profiles", value = "recording")
class HttpJsonForwardingTest extends ForwardingContract implements TestPropertyProvider {

  HttpJsonForwardingTest() throws IOException {
    super(new HttpOtlpReceiver());
  }

  @Override
  public Map<String, String> getProperties() {
    return Map.of(
        "spanprof.export.endpoint", "http://localhost:" + receiver.port(),
        "spanprof.export.protocol", "http/json",
        "spanprof.export.flush-interval", "10ms");
  }

  @AfterAll
  void everyRequestWasJson() {
    assertThat(((HttpOtlpReceiver) receiver).contentTypes()).isNotEmpty()
        .containsOnly("application/json");
  }
}
