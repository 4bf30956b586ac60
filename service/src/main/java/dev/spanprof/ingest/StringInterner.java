package dev.spanprof.ingest;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Shares one String instance per distinct service name, span name and attribute key, so a million
 * buffered spans of a hundred operations hold a hundred name strings, not a million.
 *
 * <p>Bounded: once {@code maxSize} distinct strings are held, new ones are returned as they are
 * (still correct, just not shared), so a client that sends unbounded names cannot grow the pool.
 */
final class StringInterner {

  private final ConcurrentHashMap<String, String> pool = new ConcurrentHashMap<>();
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

  int size() {
    return pool.size();
  }
}
