package dev.spanprof.analysis;

import java.util.Arrays;
import java.util.Objects;

/**
 * An immutable, ordered list of attributes, as compact as two arrays.
 *
 * <p>Values are {@link String}, {@link Long}, {@link Double}, {@link Boolean}, {@code byte[]},
 * {@link java.util.List} of values (OTLP arrays) or nested {@code Attributes} (OTLP key-value
 * lists). Lookup is a linear scan: spans carry a handful to a few dozen attributes, where a scan
 * over keys whose hashes are cached beats a hash table and costs no per-entry objects.
 */
public final class Attributes {

  private static final Attributes EMPTY = new Attributes(new String[0], new Object[0]);

  private final String[] keys;
  private final Object[] values;

  private Attributes(String[] keys, Object[] values) {
    this.keys = keys;
    this.values = values;
  }

  public static Attributes empty() {
    return EMPTY;
  }

  /**
   * Attributes from parallel arrays, which the caller hands over and must not change afterwards.
   * A key that occurs twice keeps its first value for {@link #get} (OTLP forbids duplicates; the
   * first one wins, as in the OpenTelemetry SDK's attribute processing).
   */
  public static Attributes wrap(String[] keys, Object[] values) {
    Objects.requireNonNull(keys, "keys");
    Objects.requireNonNull(values, "values");
    if (keys.length != values.length) {
      throw new IllegalArgumentException(
          "keys and values differ in length: " + keys.length + " vs " + values.length);
    }
    return keys.length == 0 ? EMPTY : new Attributes(keys, values);
  }

  /** The value under {@code key}, or null when absent. */
  public Object get(String key) {
    // Strings cache their hash: comparing it first makes a miss, the usual outcome, one int
    // comparison instead of a call to equals.
    int hash = key.hashCode();
    for (int i = 0; i < keys.length; i++) {
      String candidate = keys[i];
      if (candidate == key || candidate.hashCode() == hash && candidate.equals(key)) {
        return values[i];
      }
    }
    return null;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Attributes that
        && Arrays.equals(keys, that.keys)
        && Arrays.deepEquals(values, that.values);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(keys) + Arrays.deepHashCode(values);
  }

  @Override
  public String toString() {
    StringBuilder text = new StringBuilder("{");
    for (int i = 0; i < keys.length; i++) {
      if (i > 0) {
        text.append(", ");
      }
      Object value = values[i];
      text.append(keys[i]).append('=')
          .append(value instanceof byte[] bytes ? Arrays.toString(bytes) : value);
    }
    return text.append('}').toString();
  }
}
