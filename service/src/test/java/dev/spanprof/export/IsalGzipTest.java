package dev.spanprof.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spanprof.config.ExportConfiguration.Compression;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * gzip level 1 through ISA-L. The build's isal profile sets {@code spanprof.isal.built} where it
 * compiled the library (CI does, installing libisal-dev first), and then it must load; elsewhere
 * level 1 is the JDK's zlib, and the same round trips check that.
 */
class IsalGzipTest {

  @Test
  void library_loadsWhereTheBuildMadeIt_andLeavesNoFileBehind() throws IOException {
    if (Boolean.getBoolean("spanprof.isal.built")) {
      assertThat(IsalGzip.unavailableReason()).isNull();
      assertThat(IsalGzip.available()).isTrue();
      // The library stays mapped from the copy it was loaded from, which is gone.
      assertThat(Files.readAllLines(Path.of("/proc/self/maps")))
          .filteredOn(line -> line.contains("spanprof-isal")).isNotEmpty()
          .allSatisfy(line -> assertThat(line).endsWith("(deleted)"));
    } else {
      assertThat(IsalGzip.available()).isFalse();
      assertThat(IsalGzip.unavailableReason()).isNotBlank();
      assertThatThrownBy(() -> IsalGzip.stream(new ByteArrayOutputStream()))
          .isInstanceOf(IllegalStateException.class);
    }
  }

  @Test
  void levelOne_roundTrips_aboutAsSmallAsZlib() throws IOException {
    byte[] spans = CompressorsTest.spanLikeBytes();

    byte[] compressed = levelOne(spans, spans.length);

    assertThat(CompressorsTest.gunzip(compressed)).isEqualTo(spans);
    assertThat(compressed.length).isLessThan(zlibLevelOne(spans).length * 11 / 10);
  }

  @Test
  void incompressibleBytesInPiecesOfEverySize_roundTrip() throws IOException {
    byte[] noise = new byte[1 << 20];
    new Random(7).nextBytes(noise);

    for (int piece : new int[] {1, 7, 4096, 100_000, noise.length}) {
      assertThat(CompressorsTest.gunzip(levelOne(noise, piece))).as("pieces of %d", piece)
          .isEqualTo(noise);
    }
  }

  @Test
  void nothingWritten_isAnEmptyGzipStream() throws IOException {
    assertThat(CompressorsTest.gunzip(levelOne(new byte[0], 1))).isEmpty();
  }

  @Test
  void pooledCompressors_startEachStreamAfresh() throws IOException {
    byte[] spans = CompressorsTest.spanLikeBytes();
    byte[] first = levelOne(spans, spans.length);
    // A stream abandoned half way (its compressor holds state) before the pool hands it on.
    OutputStream abandoned = Compressors.stream(Compression.GZIP, 1, new ByteArrayOutputStream());
    abandoned.write(spans, 0, spans.length / 2);
    abandoned.close();

    for (int i = 0; i < 3; i++) {
      assertThat(levelOne(spans, 1000)).isEqualTo(first);
    }
  }

  @Test
  void streamsOnSeveralThreadsAtOnce_eachGetTheirOwnCompressor() throws Exception {
    byte[] spans = CompressorsTest.spanLikeBytes();
    byte[] expected = levelOne(spans, spans.length);
    ExecutorService threads = Executors.newFixedThreadPool(4);
    try {
      List<Future<byte[]>> results = new ArrayList<>();
      for (int i = 0; i < 64; i++) {
        results.add(threads.submit(() -> levelOne(spans, 4096)));
      }
      for (Future<byte[]> result : results) {
        assertThat(result.get()).isEqualTo(expected);
      }
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  void closedStream_closesOnce_andRefusesWrites() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    OutputStream zip = Compressors.stream(Compression.GZIP, 1, out);
    zip.write('x');
    zip.close();
    int length = out.size();
    zip.close();

    assertThat(out.size()).isEqualTo(length);
    assertThat(CompressorsTest.gunzip(out.toByteArray())).containsExactly('x');
    assertThatThrownBy(() -> zip.write('y')).isInstanceOf(IOException.class);
  }

  /** Through the senders' gzip at level 1, written {@code piece} bytes (1: byte by byte) at a time. */
  private static byte[] levelOne(byte[] bytes, int piece) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (OutputStream zip = Compressors.stream(Compression.GZIP, 1, out)) {
      for (int offset = 0; offset < bytes.length; offset += piece) {
        if (piece == 1) {
          zip.write(bytes[offset]);
        } else {
          zip.write(bytes, offset, Math.min(piece, bytes.length - offset));
        }
      }
    }
    return out.toByteArray();
  }

  private static byte[] zlibLevelOne(byte[] bytes) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (OutputStream zip = Compressors.zlibGzip(1, out)) {
      zip.write(bytes);
    }
    return out.toByteArray();
  }
}
