package dev.spanprof.analysis;

import java.util.Arrays;
import java.util.Objects;

/**
 * An immutable, ordered list of attributes, as compact as a few arrays.
 *
 * <p>Values are {@link String}, {@link Long}, {@link Double}, {@link Boolean}, {@code byte[]},
 * {@link java.util.List} of values (OTLP arrays) or nested {@code Attributes} (OTLP key-value
 * lists). Lookup is a linear scan: spans carry a handful to a few dozen attributes, where a scan
 * over keys whose hashes are cached beats a hash table and costs no per-entry objects.
 *
 * <p>Two forms behave the same. {@link #wrap} holds decoded values. {@link #encoded} holds where
 * each value is encoded and decodes a value each time {@link #get} asks for its key: the mapping
 * reads a few of a span's attributes and finds most of them absent, so decoding only those it
 * finds saves building a string for every value of every span. A value that decodes to null (an
 * empty one) counts as absent.
 */
public final class Attributes {

  private static final Attributes EMPTY = new Attributes(new String[0], new Object[0], null, null, null, null);

  /** Decodes one value from {@code buffer[offset, offset + length)}: null for an empty value. */
  @FunctionalInterface
  public interface ValueDecoder {
    Object decode(byte[] buffer, int offset, int length);
  }

  private final String[] keys;
  /**
   * One bit per key, chosen by the key's hash: a key whose bit is clear is absent, which most
   * lookups find out from this one word without looking at a key.
   */
  private final long keyBits;
  /** The decoded values; null in the encoded form. */
  private final Object[] values;
  // The encoded form: each value's range in the encoding, and how to decode it.
  private final byte[] encoding;
  private final int[] valueOffsets;
  private final int[] valueLengths;
  private final ValueDecoder decoder;

  private Attributes(String[] keys, Object[] values, byte[] encoding, int[] valueOffsets,
      int[] valueLengths, ValueDecoder decoder) {
    this.keys = keys;
    long bits = 0;
    for (String key : keys) {
      bits |= keyBit(key.hashCode());
    }
    this.keyBits = bits;
    this.values = values;
    this.encoding = encoding;
    this.valueOffsets = valueOffsets;
    this.valueLengths = valueLengths;
    this.decoder = decoder;
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
    return keys.length == 0 ? EMPTY : new Attributes(keys, values, null, null, null, null);
  }

  /**
   * Attributes whose values stay encoded in {@code encoding} until asked for: value {@code i} is
   * {@code encoding[offsets[i], offsets[i] + lengths[i])}, decoded by {@code decoder}. The caller
   * hands the arrays over and must not change them afterwards.
   */
  public static Attributes encoded(String[] keys, byte[] encoding, int[] offsets, int[] lengths,
      ValueDecoder decoder) {
    Objects.requireNonNull(encoding, "encoding");
    Objects.requireNonNull(decoder, "decoder");
    if (keys.length != offsets.length || keys.length != lengths.length) {
      throw new IllegalArgumentException("keys, offsets and lengths differ in length: "
          + keys.length + ", " + offsets.length + ", " + lengths.length);
    }
    if (keys.length == 0) {
      return EMPTY;
    }
    return new Attributes(keys, null, encoding, offsets, lengths, decoder);
  }

  /** The value under {@code key}, or null when absent. */
  public Object get(String key) {
    // Strings cache their hash: comparing it first makes a miss, the usual outcome, one int
    // comparison instead of a call to equals.
    int hash = key.hashCode();
    if ((keyBits & keyBit(hash)) == 0) {
      return null;
    }
    for (int i = 0; i < keys.length; i++) {
      String candidate = keys[i];
      if (candidate == key || candidate.hashCode() == hash && candidate.equals(key)) {
        Object value = value(i);
        if (value != null) {
          return value;
        }
      }
    }
    return null;
  }

  private static long keyBit(int hash) {
    // The hash's high half folded into the six low bits that pick the bit.
    return 1L << ((hash ^ hash >>> 16) & 63);
  }

  private Object value(int i) {
    if (values != null) {
      return values[i];
    }
    return decoder.decode(encoding, valueOffsets[i], valueLengths[i]);
  }

  /** Every present key and its value, decoded: what equality and text compare. */
  private Attributes decoded() {
    if (values != null) {
      return this;
    }
    String[] presentKeys = new String[keys.length];
    Object[] presentValues = new Object[keys.length];
    int count = 0;
    for (int i = 0; i < keys.length; i++) {
      Object value = value(i);
      if (value != null) {
        presentKeys[count] = keys[i];
        presentValues[count++] = value;
      }
    }
    return wrap(Arrays.copyOf(presentKeys, count), Arrays.copyOf(presentValues, count));
  }

  @Override
  public boolean equals(Object other) {
    if (!(other instanceof Attributes that)) {
      return false;
    }
    Attributes a = decoded();
    Attributes b = that.decoded();
    return Arrays.equals(a.keys, b.keys) && Arrays.deepEquals(a.values, b.values);
  }

  @Override
  public int hashCode() {
    Attributes a = decoded();
    return 31 * Arrays.hashCode(a.keys) + Arrays.deepHashCode(a.values);
  }

  @Override
  public String toString() {
    Attributes a = decoded();
    StringBuilder text = new StringBuilder("{");
    for (int i = 0; i < a.keys.length; i++) {
      if (i > 0) {
        text.append(", ");
      }
      Object value = a.values[i];
      text.append(a.keys[i]).append('=')
          .append(value instanceof byte[] bytes ? Arrays.toString(bytes) : value);
    }
    return text.append('}').toString();
  }
}
