package dev.spanprof.export;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spanprof.config.ExportConfiguration;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Random;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

class GzipTest {

  @Test
  void stream_eachLevel_roundTrips_andTheLevelIsApplied() throws IOException {
    byte[] spans = spanLikeBytes();

    byte[] fastest = gzip(spans, 1, false);
    byte[] smallest = gzip(spans, 9, false);

    assertThat(gunzip(fastest)).isEqualTo(spans);
    assertThat(gunzip(smallest)).isEqualTo(spans);
    assertThat(smallest.length).isLessThan(fastest.length);
  }

  @Test
  void grpcCompressor_isGzipAtItsLevel() throws IOException {
    byte[] spans = spanLikeBytes();

    assertThat(Gzip.grpc(1).getMessageEncoding()).isEqualTo("gzip");
    assertThat(gzip(spans, 1, true)).isEqualTo(gzip(spans, 1, false));
    assertThat(gunzip(gzip(spans, 9, true))).isEqualTo(spans);
  }

  @Test
  void configuration_levelOutsideOneToNine_refusedNamingTheKey() {
    ExportConfiguration configuration = new ExportConfiguration();
    assertThat(configuration.gzipLevel()).isEqualTo(1);
    configuration.setCompressionLevel(10);
    assertThatThrownBy(configuration::gzipLevel)
        .hasMessage("spanprof.export.compression-level must be 1 to 9, got 10");
    configuration.setCompression("none");
    assertThat(configuration.gzipLevel()).isZero();
  }

  private static byte[] gzip(byte[] bytes, int level, boolean throughGrpc) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (OutputStream zip = throughGrpc ? Gzip.grpc(level).compress(out) : Gzip.stream(out, level)) {
      zip.write(bytes);
    }
    return out.toByteArray();
  }

  private static byte[] gunzip(byte[] bytes) throws IOException {
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(bytes))) {
      return in.readAllBytes();
    }
  }

  /** Repetitive like encoded spans (same keys and names), with random ids and times. */
  private static byte[] spanLikeBytes() {
    Random random = new Random(1);
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < 2000; i++) {
      text.append("http.method=GET url=/cart/").append(random.nextInt(50))
          .append(" thread.name=http-nio-8080-exec-").append(random.nextInt(8))
          .append(" id=").append(Long.toHexString(random.nextLong())).append('\n');
    }
    return text.toString().getBytes(UTF_8);
  }
}
