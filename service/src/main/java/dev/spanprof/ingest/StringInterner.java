package dev.spanprof.ingest;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Shares one String instance per distinct service name, span name and attribute key, so a million
 * buffered spans of a hundred operations hold a hundred name strings, not a million.
 *
 * <p>Bounded: once {@code maxSize} distinct strings are held, new ones are returned as they are
 * (still correct, just not shared), so a client that sends unbounded names cannot grow the pool.
 *
 * <p>Strings read off the wire are looked up by their UTF-8 bytes ({@link #intern(byte[], int,
 * int)}): a name or key seen before costs a hash and a comparison of bytes, and no String is
 * built for it.
 */
final class StringInterner {

  private final ConcurrentHashMap<String, String> pool = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<Utf8Key, String> byBytes = new ConcurrentHashMap<>();
  /** Each thread's reusable lookup key: a lookup allocates nothing. */
  private final ThreadLocal<Utf8Key> probes = ThreadLocal.withInitial(Utf8Key::new);
  private final int maxSize;

  StringInterner(int maxSize) {
    if (maxSize < 0) {
      throw new IllegalArgumentException("maxSize must not be negative, was " + maxSize);
    }
    this.maxSize = maxSize;
  }

  String intern(String value) {
    String shared = pool.get(value);
    if (shared != null) {
      return shared;
    }
    if (pool.size() >= maxSize) {
      return value;
    }
    shared = pool.putIfAbsent(value, value);
    return shared != null ? shared : value;
  }

  /** The shared string of {@code utf8[offset, offset + length)}, decoded as UTF-8. */
  String intern(byte[] utf8, int offset, int length) {
    Utf8Key probe = probes.get().over(utf8, offset, length);
    String shared = byBytes.get(probe);
    probe.bytes = null; // the probe must not keep a request body alive
    if (shared != null) {
      return shared;
    }
    String value = intern(new String(utf8, offset, length, StandardCharsets.UTF_8));
    if (byBytes.size() < maxSize) {
      byte[] copy = Arrays.copyOfRange(utf8, offset, offset + length);
      byBytes.putIfAbsent(new Utf8Key().over(copy, 0, length), value);
    }
    return value;
  }

  int size() {
    return pool.size();
  }

  /** A new front cache for one thread's lookups by bytes. */
  ThreadCache threadCache() {
    return new ThreadCache();
  }

  /**
   * A small direct-mapped cache in front of {@link #intern(byte[], int, int)}, for one thread:
   * decoding spans' attributes looks up the same few keys over and over, and a slot found by
   * hash and checked by comparing bytes needs neither the thread's probe nor the shared map.
   * Holds at most {@value #SLOTS} strings of up to {@value #MAX_CACHED_BYTES} bytes.
   */
  final class ThreadCache {
    private static final int SLOTS = 256;
    private static final int MAX_CACHED_BYTES = 128;

    private final byte[][] bytes = new byte[SLOTS][];
    private final int[] hashes = new int[SLOTS];
    private final String[] strings = new String[SLOTS];

    private ThreadCache() {}

    /** Equal to {@link StringInterner#intern(byte[], int, int)}. */
    String intern(byte[] utf8, int offset, int length) {
      int hash = Utf8Key.hash(utf8, offset, length);
      int slot = (hash ^ hash >>> 16) & (SLOTS - 1);
      byte[] cached = bytes[slot];
      if (cached != null && hashes[slot] == hash
          && Arrays.equals(cached, 0, cached.length, utf8, offset, offset + length)) {
        return strings[slot];
      }
      String value = StringInterner.this.intern(utf8, offset, length);
      if (length <= MAX_CACHED_BYTES) {
        bytes[slot] = Arrays.copyOfRange(utf8, offset, offset + length);
        hashes[slot] = hash;
        strings[slot] = value;
      }
      return value;
    }
  }

  /** A range of bytes as a map key. Mutable only while it is a thread's lookup probe. */
  private static final class Utf8Key {
    private byte[] bytes;
    private int offset;
    private int length;
    private int hash;

    Utf8Key over(byte[] bytes, int offset, int length) {
      this.bytes = bytes;
      this.offset = offset;
      this.length = length;
      this.hash = hash(bytes, offset, length);
      return this;
    }

    static int hash(byte[] bytes, int offset, int length) {
      int h = 1;
      for (int i = offset; i < offset + length; i++) {
        h = 31 * h + bytes[i];
      }
      return h;
    }

    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof Utf8Key that
          && hash == that.hash
          && Arrays.equals(bytes, offset, offset + length, that.bytes, that.offset, that.offset + that.length);
    }
  }
}
