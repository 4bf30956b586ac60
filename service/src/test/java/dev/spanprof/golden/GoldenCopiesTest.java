package dev.spanprof.golden;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The test resources hold every golden case of shared/golden, byte for byte. */
class GoldenCopiesTest {

  @Test
  void copies_matchSharedGoldenByteForByte() throws Exception {
    Path shared = GoldenCases.sharedDirectory();
    try (Stream<Path> originals = Files.list(shared)) {
      assertThat(originals).isNotEmpty().allSatisfy(original -> {
        Path copy = GoldenCases.directory().resolve(original.getFileName());
        assertThat(copy).as("copy of " + original.getFileName()).exists();
        assertThat(Files.readAllBytes(copy)).isEqualTo(Files.readAllBytes(original));
      });
    }
  }
}
