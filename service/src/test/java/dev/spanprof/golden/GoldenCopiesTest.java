package dev.spanprof.golden;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The test resources hold the golden cases of {@code shared/golden} byte for byte, and the
 * repository's {@code docs/} the spec of {@code shared/spec}. Their checksums are committed
 * ({@code golden/SHA256SUMS}), so that an edited expected value fails on any clone; where
 * {@code shared/} is beside the repository (as in CI), the copies are compared with it too.
 */
class GoldenCopiesTest {

  private static final String SUMS = "SHA256SUMS";

  @Test
  void copies_matchTheirCommittedChecksums() throws Exception {
    Map<String, String> committed = new TreeMap<>();
    for (String line : Files.readAllLines(GoldenCases.directory().resolve(SUMS))) {
      String[] sumAndName = line.split("  ", 2);
      committed.put(sumAndName[1], sumAndName[0]);
    }

    assertThat(committed).isNotEmpty();
    assertThat(checksums(GoldenCases.directory())).isEqualTo(committed);
  }

  @Test
  void copies_matchSharedByteForByte_whereSharedIsBesideTheRepository() throws Exception {
    Path shared = GoldenCases.sharedDirectory();
    if (shared == null) {
      assertThat(Path.of("..", "docs", "semantics.md")).exists();
      assertThat(Path.of("..", "docs", "contract.md")).exists();
      return; // a lone clone: the committed checksums above stand for the originals
    }
    assertThat(checksums(GoldenCases.directory())).isEqualTo(checksums(shared));
    for (String spec : List.of("semantics.md", "contract.md")) {
      assertThat(Files.readString(Path.of("..", "docs", spec), StandardCharsets.UTF_8))
          .as("docs/%s is shared/spec/%s", spec, spec)
          .isEqualTo(Files.readString(shared.resolveSibling("spec").resolve(spec),
              StandardCharsets.UTF_8));
    }
  }

  /** Each golden file's SHA-256, by name. */
  private static Map<String, String> checksums(Path directory) throws IOException {
    Map<String, String> sums = new TreeMap<>();
    try (Stream<Path> files = Files.list(directory)) {
      for (Path file : files.filter(f -> f.getFileName().toString().endsWith(".json")).toList()) {
        try {
          sums.put(file.getFileName().toString(), HexFormat.of().formatHex(
              MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file))));
        } catch (NoSuchAlgorithmException e) {
          throw new IllegalStateException("every JDK has SHA-256", e);
        }
      }
    }
    return sums;
  }
}
