package dev.spanprof.golden;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The worked cases of {@code shared/golden/}, from their byte-identical copies in the test
 * resources ({@code GoldenCopiesTest} keeps the copies honest).
 */
public final class GoldenCases {

  private GoldenCases() {}

  /** The copies, on the test class path. */
  public static Path directory() {
    try {
      return Path.of(GoldenCases.class.getResource("/golden").toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The originals, in a {@code shared/golden} above the working directory; null when none is. */
  public static Path sharedDirectory() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path candidate = dir.resolve("shared").resolve("golden");
      if (Files.isDirectory(candidate)) {
        return candidate;
      }
    }
    return null;
  }

  /** Case names, e.g. {@code seed-time-case3-overlap}, sorted. */
  public static List<String> names() {
    try (Stream<Path> files = Files.list(directory())) {
      return files.map(file -> file.getFileName().toString())
          .filter(name -> name.endsWith(".otlp.json"))
          .map(name -> name.substring(0, name.length() - ".otlp.json".length()))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static byte[] otlpJson(String name) {
    return read(name + ".otlp.json");
  }

  public static byte[] expectedJson(String name) {
    return read(name + ".expected.json");
  }

  private static byte[] read(String file) {
    try {
      return Files.readAllBytes(directory().resolve(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
