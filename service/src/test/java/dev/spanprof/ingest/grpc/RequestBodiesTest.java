package dev.spanprof.ingest.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.KnownLength;
import java.io.ByteArrayInputStream;
import java.util.Arrays;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class RequestBodiesTest {

  private final RequestBodies bodies = new RequestBodies();

  @Test
  void parse_bodyOfKnownLength_isReadWhole_andItsArrayServesTheNextBody() {
    byte[] first = bytes(20_000, 1);
    ReceivedBody received = bodies.parse(new KnownLengthStream(first));
    assertThat(received.length()).isEqualTo(first.length);
    assertThat(Arrays.copyOf(received.bytes(), received.length())).isEqualTo(first);
    byte[] array = received.bytes();
    received.release();

    byte[] second = bytes(15_000, 2);
    ReceivedBody next = bodies.parse(new KnownLengthStream(second));
    assertThat(next.bytes()).as("the array given back").isSameAs(array);
    assertThat(Arrays.copyOf(next.bytes(), next.length())).isEqualTo(second);
  }

  @Test
  void parse_bodyOfUnknownLength_growsTheArrayUntilTheEnd() {
    // A compressed request's stream does not know its length.
    byte[] body = bytes(300_000, 3);
    ReceivedBody received = bodies.parse(new ByteArrayInputStream(body));
    assertThat(Arrays.copyOf(received.bytes(), received.length())).isEqualTo(body);
  }

  @Test
  void parse_emptyBody_isEmpty() {
    assertThat(bodies.parse(new KnownLengthStream(new byte[0])).length()).isZero();
    assertThat(bodies.parse(new ByteArrayInputStream(new byte[0])).length()).isZero();
  }

  @Test
  void give_keepsAtMostTheBoundInNumberAndSize() {
    byte[] tooLarge = new byte[RequestBodies.MAX_POOLED_BYTES + 1];
    bodies.give(tooLarge);
    assertThat(bodies.take(10)).isNotSameAs(tooLarge);

    byte[][] given = new byte[RequestBodies.POOLED_ARRAYS + 1][];
    for (int i = 0; i < given.length; i++) {
      given[i] = new byte[64];
      bodies.give(given[i]);
    }
    for (int i = 0; i < RequestBodies.POOLED_ARRAYS; i++) {
      assertThat(bodies.take(64)).isSameAs(given[i]);
    }
    assertThat(bodies.take(64)).as("the one past the bound was not kept").isNotSameAs(given[given.length - 1]);
  }

  @Test
  void take_keptArrayTooSmall_givesANewOneRoundedUpToAPowerOfTwo() {
    bodies.give(new byte[64]);
    assertThat(bodies.take(100)).hasSize(128);
    assertThat(bodies.take(RequestBodies.MAX_POOLED_BYTES + 3)).hasSize(RequestBodies.MAX_POOLED_BYTES + 3);
  }

  private static byte[] bytes(int length, int seed) {
    byte[] bytes = new byte[length];
    IntStream.range(0, length).forEach(i -> bytes[i] = (byte) (i * 31 + seed));
    return bytes;
  }

  /** A message stream that knows its length, as gRPC's do for uncompressed messages. */
  private static final class KnownLengthStream extends ByteArrayInputStream implements KnownLength {
    KnownLengthStream(byte[] bytes) {
      super(bytes);
    }
  }
}
