package dev.spanprof.export;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.luben.zstd.ZstdInputStream;
import dev.spanprof.config.ExportConfiguration;
import dev.spanprof.config.ExportConfiguration.Compression;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Random;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

class CompressorsTest {

  @Test
  void gzip_eachLevel_roundTrips_andTheLevelIsApplied() throws IOException {
    byte[] spans = spanLikeBytes();

    byte[] fastest = compress(Compression.GZIP, spans, 1, false);
    byte[] smallest = compress(Compression.GZIP, spans, 9, false);

    assertThat(gunzip(fastest)).isEqualTo(spans);
    assertThat(gunzip(smallest)).isEqualTo(spans);
    assertThat(smallest.length).isLessThan(fastest.length);
  }

  @Test
  void zstd_eachLevel_roundTrips_andTheLevelIsApplied() throws IOException {
    byte[] spans = spanLikeBytes();

    byte[] fastest = compress(Compression.ZSTD, spans, 1, false);
    byte[] smallest = compress(Compression.ZSTD, spans, 19, false);

    assertThat(unzstd(fastest)).isEqualTo(spans);
    assertThat(unzstd(smallest)).isEqualTo(spans);
    assertThat(smallest.length).isLessThan(fastest.length);
  }

  @Test
  void grpcCompressor_isTheCompressionAtItsLevel_namedAsItsEncoding() throws IOException {
    byte[] spans = spanLikeBytes();

    assertThat(Compressors.grpc(Compression.GZIP, 1).getMessageEncoding()).isEqualTo("gzip");
    assertThat(Compressors.grpc(Compression.ZSTD, 1).getMessageEncoding()).isEqualTo("zstd");
    assertThat(compress(Compression.GZIP, spans, 1, true)).isEqualTo(compress(Compression.GZIP, spans, 1, false));
    assertThat(compress(Compression.ZSTD, spans, 3, true)).isEqualTo(compress(Compression.ZSTD, spans, 3, false));
    assertThat(gunzip(compress(Compression.GZIP, spans, 9, true))).isEqualTo(spans);
  }

  @Test
  void configuration_levelOutsideTheCompressionsRange_refusedNamingTheKey() {
    ExportConfiguration configuration = new ExportConfiguration();
    assertThat(configuration.compressionValue()).isEqualTo(Compression.GZIP);
    assertThat(configuration.compressionLevelValue()).isEqualTo(1);
    configuration.setCompressionLevel(10);
    assertThatThrownBy(configuration::compressionLevelValue)
        .hasMessage("spanprof.export.compression-level must be 1 to 9 for gzip, got 10");

    configuration.setCompression("ZSTD");
    assertThat(configuration.compressionLevelValue()).isEqualTo(10);
    configuration.setCompressionLevel(23);
    assertThatThrownBy(configuration::compressionLevelValue)
        .hasMessage("spanprof.export.compression-level must be 1 to 22 for zstd, got 23");

    configuration.setCompression("none");
    assertThat(configuration.compressionLevelValue()).isZero();
    configuration.setCompression("brotli");
    assertThatThrownBy(configuration::compressionValue)
        .hasMessage("spanprof.export.compression must be gzip, zstd or none, got 'brotli'");
  }

  private static byte[] compress(Compression compression, byte[] bytes, int level, boolean throughGrpc)
      throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (OutputStream compressing = throughGrpc
        ? Compressors.grpc(compression, level).compress(out)
        : Compressors.stream(compression, level, out)) {
      compressing.write(bytes);
    }
    return out.toByteArray();
  }

  static byte[] gunzip(byte[] bytes) throws IOException {
    return readAll(new GZIPInputStream(new ByteArrayInputStream(bytes)));
  }

  private static byte[] unzstd(byte[] bytes) throws IOException {
    return readAll(new ZstdInputStream(new ByteArrayInputStream(bytes)));
  }

  private static byte[] readAll(InputStream in) throws IOException {
    try (in) {
      return in.readAllBytes();
    }
  }

  /** Repetitive like encoded spans (same keys and names), with random ids and times. */
  static byte[] spanLikeBytes() {
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
