package dev.spanprof.security;

import dev.spanprof.time.TimeSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A file of tokens, one per line, kept as their SHA-256 digests (so a comparison takes the same
 * time whatever the token, and no token stays in memory as text). The file is looked at again
 * at most once a second and read again when its modification time or size changed: rotating a
 * token is writing the file, several tokens valid at once while clients move over. A file that
 * cannot be read at start is an error; later, the tokens read before stay in force.
 */
final class TokenFile {

  private static final Logger LOG = LoggerFactory.getLogger(TokenFile.class);
  private static final long RECHECK_NANOS = 1_000_000_000L;

  private final Path path;
  private final TimeSource time;
  private volatile Snapshot snapshot;

  /** What was read, and when the file was last looked at. */
  private record Snapshot(long checkedNanos, FileTime modified, long size, List<byte[]> digests) {}

  TokenFile(Path path, TimeSource time) {
    this.path = path;
    this.time = time;
    try {
      this.snapshot = read(time.nanoTime());
    } catch (IOException | UncheckedIOException e) {
      throw new IllegalArgumentException("cannot read the tokens file " + path + ": " + e, e);
    }
    if (snapshot.digests().isEmpty()) {
      throw new IllegalArgumentException("the tokens file " + path + " holds no token");
    }
  }

  /** The digests of the tokens now in force. */
  List<byte[]> digests() {
    Snapshot current = snapshot;
    long now = time.nanoTime();
    if (now - current.checkedNanos() < RECHECK_NANOS) {
      return current.digests();
    }
    synchronized (this) {
      current = snapshot;
      if (now - current.checkedNanos() < RECHECK_NANOS) {
        return current.digests();
      }
      try {
        BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class);
        if (attributes.lastModifiedTime().equals(current.modified())
            && attributes.size() == current.size()) {
          snapshot = new Snapshot(now, current.modified(), current.size(), current.digests());
        } else {
          Snapshot read = read(now);
          snapshot = read.digests().isEmpty() ? current : read;
          LOG.info("tokens file {} read again: {} tokens", path, snapshot.digests().size());
        }
      } catch (IOException | UncheckedIOException e) {
        LOG.warn("cannot read the tokens file {} again, keeping its {} tokens: {}", path,
            current.digests().size(), e.toString());
        snapshot = new Snapshot(now, current.modified(), current.size(), current.digests());
      }
      return snapshot.digests();
    }
  }

  private Snapshot read(long nowNanos) throws IOException {
    BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class);
    List<byte[]> digests = new ArrayList<>();
    for (String line : Files.readAllLines(path, StandardCharsets.UTF_8)) {
      String token = line.strip();
      if (!token.isEmpty() && !token.startsWith("#")) {
        digests.add(digest(token));
      }
    }
    return new Snapshot(nowNanos, attributes.lastModifiedTime(), attributes.size(),
        List.copyOf(digests));
  }

  static byte[] digest(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
