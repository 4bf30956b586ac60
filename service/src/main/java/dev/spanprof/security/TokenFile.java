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
 * cannot be read at start is an error. Later, a file emptied, gone or unreadable fails closed:
 * no token is valid until it holds one again, since an operator who empties it means to revoke,
 * and one whose secret vanished must not keep yesterday's tokens. Each change of state is logged
 * once.
 */
final class TokenFile {

  private static final Logger LOG = LoggerFactory.getLogger(TokenFile.class);
  private static final long RECHECK_NANOS = 1_000_000_000L;

  private final Path path;
  private final TimeSource time;
  private volatile Snapshot snapshot;

  /**
   * What was read, and when the file was last looked at; {@code failure} says why no token is in
   * force (null when the file was read).
   */
  private record Snapshot(long checkedNanos, FileTime modified, long size, List<byte[]> digests,
      String failure) {

    Snapshot checkedAt(long nowNanos) {
      return new Snapshot(nowNanos, modified, size, digests, failure);
    }
  }

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

  /** The digests of the tokens now in force: none while the file is empty, gone or unreadable. */
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
      Snapshot next;
      boolean read = false;
      try {
        BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class);
        if (current.failure() == null
            && attributes.lastModifiedTime().equals(current.modified())
            && attributes.size() == current.size()) {
          next = current.checkedAt(now);
        } else {
          next = read(now);
          read = true;
        }
      } catch (IOException | UncheckedIOException e) {
        next = new Snapshot(now, null, -1, List.of(), "cannot be read (" + e + ")");
      }
      if (next.failure() != null && !next.failure().equals(current.failure())) {
        LOG.error("tokens file {} {}: refusing every token of its kind until it holds one",
            path, next.failure());
      } else if (read && next.failure() == null) {
        LOG.info("tokens file {} read again: {} tokens", path, next.digests().size());
      }
      snapshot = next;
      return next.digests();
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
        List.copyOf(digests), digests.isEmpty() ? "holds no token" : null);
  }

  static byte[] digest(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
