package dev.spanprof.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.span.TraceId;
import dev.spanprof.testing.Meters;
import dev.spanprof.testing.Otlp;
import dev.spanprof.testing.OtlpReceiver.Received;
import dev.spanprof.testing.TestTraffic;
import io.grpc.Status;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A next hop that refuses a whole batch for one span in it (protobuf-java refuses a request with
 * invalid UTF-8 in a string) gets the batch in halves, down to that span: the other spans go
 * through, and the span itself goes once more with its invalid UTF-8 replaced.
 */
@MicronautTest
@Property(name = "test.time", value = "manual")
@Property(name = "test.profiles", value = "recording")
class ForwardingIsolationTest extends GrpcNextHopTest {

  private static final int SPANS = 1000;


  ForwardingIsolationTest() throws IOException {}

  @Override
  Map<String, String> configuration() {
    return Map.of(
        "spanprof.export.flush-interval", "10ms",
        "spanprof.export.num-consumers", "1",
        "spanprof.export.max-batch-spans", "1024");
  }

  @AfterEach
  void acceptEverything() {
    receiver.failWith(request -> null);
  }

  @Test
  void spanWithInvalidUtf8AmongAThousand_othersForwarded_itRepaired() throws Exception {
    Meters before = new Meters(registry);
    double exported = before.count("spanprof.exported.spans");
    double failed = before.sum("spanprof.export.failed.spans");
    TraceId trace = new TraceId(0x17F8, 1);
    byte[] request = Otlp.rootAndChildren("svc", trace, SPANS).toByteArray();
    // Span 500's name "op" becomes 0xC3 0x28: a lead byte without its continuation.
    byte[] withBadName = withNameOfSpan(request, 500, new byte[] {(byte) 0xC3, 0x28});
    TestTraffic.post(context, "application/x-protobuf", withBadName);
    TestTraffic.complete(context, trace);

    List<Received> spans = receiver.await(
        span -> span.span().getTraceId().equals(Otlp.span(trace, 1).getTraceId()), SPANS,
        Duration.ofSeconds(30));
    assertThat(forwarder.awaitSent(Duration.ofSeconds(30))).isTrue();

    assertThat(spans).extracting(span -> span.span().getName())
        .containsOnly("op", "\uFFFD(").filteredOn("\uFFFD("::equals).hasSize(1);
    Meters meters = new Meters(registry);
    assertThat(meters.count("spanprof.exported.spans") - exported).isEqualTo(SPANS);
    assertThat(meters.count("spanprof.export.repaired.spans")).isEqualTo(1);
    assertThat(meters.sum("spanprof.export.failed.spans") - failed).isZero();
  }

  @Test
  void nextHopRefusingEverythingAsInvalid_batchGivenUpAfterAFewRequests() throws Exception {
    receiver.failWith(request -> Status.INVALID_ARGUMENT.withDescription("nothing goes"));
    int attempts = receiver.attempts();
    double failedBefore = failed();
    TraceId trace = new TraceId(0x17F8, 2);
    assertThat(TestTraffic.postProtobuf(context, Otlp.rootAndChildren("svc", trace, SPANS)))
        .isEqualTo(200);
    TestTraffic.complete(context, trace);

    assertThat(forwarder.awaitSent(Duration.ofSeconds(30))).isTrue();
    assertThat(failed() - failedBefore).isEqualTo(SPANS);
    assertThat(receiver.attempts() - attempts).as("the batch, then the isolation's budget")
        .isEqualTo(1 + 64);
  }

  private double failed() {
    return new Meters(registry).count("spanprof.export.failed.spans", "reason", "invalid_argument");
  }

  /**
   * {@code request} with the name of its {@code n}th span (1-based), "op", replaced by two other
   * bytes: the span's other fields are those of every span, so its bytes are found by its id.
   */
  private static byte[] withNameOfSpan(byte[] request, long n, byte[] name) {
    byte[] spanIdField = new byte[10];
    spanIdField[0] = 0x12; // field 2 (span_id), length-delimited
    spanIdField[1] = 8;
    for (int i = 0; i < 8; i++) {
      spanIdField[2 + i] = (byte) (n >>> (56 - 8 * i));
    }
    int at = indexOf(request, spanIdField, 0);
    byte[] op = {0x2A, 2, 'o', 'p'}; // field 5 (name), length 2
    int nameAt = indexOf(request, op, at);
    byte[] patched = request.clone();
    patched[nameAt + 2] = name[0];
    patched[nameAt + 3] = name[1];
    return patched;
  }

  private static int indexOf(byte[] haystack, byte[] needle, int from) {
    outer:
    for (int i = from; i <= haystack.length - needle.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    throw new AssertionError("not found: " + new String(needle, StandardCharsets.ISO_8859_1));
  }
}
