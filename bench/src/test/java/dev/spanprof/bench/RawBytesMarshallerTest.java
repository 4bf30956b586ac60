package dev.spanprof.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.KnownLength;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class RawBytesMarshallerTest {

  private static final byte[] MESSAGE = bytes(20_000);

  @Test
  void parse_streamOfKnownLength_readsEveryByte() {
    assertThat(parse(new Announcing(MESSAGE, MESSAGE.length))).isEqualTo(MESSAGE);
  }

  @Test
  void parse_streamAnnouncingLessOrMoreThanItHas_stillReadsEveryByteOnly() {
    assertThat(parse(new Announcing(MESSAGE, 100))).isEqualTo(MESSAGE);
    assertThat(parse(new Announcing(MESSAGE, MESSAGE.length + 100))).isEqualTo(MESSAGE);
    assertThat(parse(new Announcing(new byte[0], 0))).isEmpty();
  }

  @Test
  void parse_streamOfUnknownLength_readsEveryByte() {
    assertThat(parse(new ByteArrayInputStream(MESSAGE))).isEqualTo(MESSAGE);
  }

  private static byte[] parse(InputStream stream) {
    return RawBytesMarshaller.TRACE_EXPORT.getRequestMarshaller().parse(stream);
  }

  private static byte[] bytes(int length) {
    byte[] bytes = new byte[length];
    IntStream.range(0, length).forEach(i -> bytes[i] = (byte) (i * 31));
    return bytes;
  }

  /** A message stream that says it has {@code announced} bytes, as gRPC's say their length. */
  private static final class Announcing extends ByteArrayInputStream implements KnownLength {
    private final int announced;

    Announcing(byte[] bytes, int announced) {
      super(bytes);
      this.announced = announced;
    }

    @Override
    public synchronized int available() {
      // What is left of the announced length, as the real streams count down.
      return Math.max(0, announced - pos);
    }
  }
}
