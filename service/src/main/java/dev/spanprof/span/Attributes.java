package dev.spanprof.span;

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

  /** What the attributes spanprof reads and adds are named under. */
  public static final String SPANPROF_PREFIX = "spanprof.";

  private static final Attributes EMPTY =
      new Attributes(Keys.NONE, new Object[0], null, null, null);

  /** Decodes one value from {@code buffer[offset, offset + length)}: null for an empty value. */
  @FunctionalInterface
  public interface ValueDecoder {
    Object decode(byte[] buffer, int offset, int length);
  }

  /**
   * Attribute keys in order, with the word of key bits every lookup tests first. Attributes with
   * the same keys can share one: the spans of one instrumentation carry the same keys in the same
   * order, and then neither the array nor the bits are built per span.
   */
  public static final class Keys {
    private static final Keys NONE = new Keys(new String[0]);

    private final String[] names;
    /**
     * One bit per key, chosen by the key's hash: a key whose bit is clear is absent, which most
     * lookups find out from this one word without looking at a key.
     */
    private final long bits;
    /**
     * Whether a key starts with {@code spanprof.}: only then can a span hold an attribute that
     * spanprof's enrichment would add, and need its own looked up first.
     */
    private final boolean namesSpanprofKeys;
    /**
     * Where the last {@link KeyLookup} asked for found its keys: the service has one mapping, so
     * one is remembered. Racing threads only compute the same positions twice.
     */
    private KnownPositions knownPositions;

    private Keys(String[] names) {
      this.names = names;
      long bits = 0;
      boolean namesSpanprofKeys = false;
      for (String name : names) {
        bits |= keyBit(name.hashCode());
        namesSpanprofKeys |= name.startsWith(SPANPROF_PREFIX);
      }
      this.bits = bits;
      this.namesSpanprofKeys = namesSpanprofKeys;
    }

    /** Keys from an array the caller hands over and must not change afterwards. */
    public static Keys of(String[] names) {
      Objects.requireNonNull(names, "names");
      return names.length == 0 ? NONE : new Keys(names);
    }

    public int size() {
      return names.length;
    }

    /** Whether these are {@code names[0, length)}, the very same strings in the same order. */
    public boolean sameAs(String[] names, int length) {
      if (length != this.names.length) {
        return false;
      }
      for (int i = 0; i < length; i++) {
        if (this.names[i] != names[i]) {
          return false;
        }
      }
      return true;
    }

    int[] positionsOf(KeyLookup lookup) {
      KnownPositions known = knownPositions;
      if (known == null || known.lookup() != lookup) {
        known = new KnownPositions(lookup, lookup.positionsIn(names));
        knownPositions = known;
      }
      return known.positions();
    }

    private record KnownPositions(KeyLookup lookup, int[] positions) {}
  }

  private final Keys keys;
  /** The decoded values; null in the encoded form. */
  private final Object[] values;
  // The encoded form: value i is encoding[valueRanges[2i], + valueRanges[2i + 1]), decoded by
  // the decoder.
  private final byte[] encoding;
  private final int[] valueRanges;
  private final ValueDecoder decoder;

  private Attributes(Keys keys, Object[] values, byte[] encoding, int[] valueRanges,
      ValueDecoder decoder) {
    this.keys = keys;
    this.values = values;
    this.encoding = encoding;
    this.valueRanges = valueRanges;
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
    return keys.length == 0 ? EMPTY : new Attributes(Keys.of(keys), values, null, null, null);
  }

  /**
   * Attributes whose values stay encoded in {@code encoding} until asked for: value {@code i} is
   * {@code encoding[valueRanges[2i], valueRanges[2i] + valueRanges[2i + 1])}, decoded by
   * {@code decoder}. The caller hands the array over and must not change it afterwards.
   */
  public static Attributes encoded(Keys keys, byte[] encoding, int[] valueRanges,
      ValueDecoder decoder) {
    Objects.requireNonNull(keys, "keys");
    if (valueRanges.length != 2 * keys.size()) {
      throw rangesMissing(keys, valueRanges);
    }
    return encodedView(keys, encoding, valueRanges, decoder);
  }

  /**
   * The attributes {@link #encoded} would give, read in place from the first {@code 2 *
   * keys.size()} numbers of {@code valueRanges}, which the caller keeps and may change once it
   * no longer reads these: for attributes read where they are found and then dropped, as the
   * ingest's mapping reads each span's, so that no span costs a copy of its ranges.
   */
  public static Attributes encodedView(Keys keys, byte[] encoding, int[] valueRanges,
      ValueDecoder decoder) {
    Objects.requireNonNull(keys, "keys");
    Objects.requireNonNull(encoding, "encoding");
    Objects.requireNonNull(decoder, "decoder");
    if (valueRanges.length < 2 * keys.size()) {
      throw rangesMissing(keys, valueRanges);
    }
    if (keys.size() == 0) {
      return EMPTY;
    }
    return new Attributes(keys, null, encoding, valueRanges, decoder);
  }

  /**
   * Whether these read {@code keys}' values from {@code encoding} by {@code valueRanges} in
   * place, through {@code decoder}: a view ({@link #encodedView}) that serves for whatever those
   * arrays hold now, as a new one would.
   */
  public boolean viewOf(Keys keys, byte[] encoding, int[] valueRanges, ValueDecoder decoder) {
    return this.keys == keys && this.encoding == encoding && this.valueRanges == valueRanges
        && this.decoder == decoder;
  }

  private static IllegalArgumentException rangesMissing(Keys keys, int[] valueRanges) {
    return new IllegalArgumentException("expected an offset and a length for each of "
        + keys.size() + " keys, got " + valueRanges.length + " numbers");
  }

  /** The value under {@code key}, or null when absent. */
  public Object get(String key) {
    // Strings cache their hash: comparing it first makes a miss, the usual outcome, one int
    // comparison instead of a call to equals.
    int hash = key.hashCode();
    if ((keys.bits & keyBit(hash)) == 0) {
      return null;
    }
    String[] names = keys.names;
    for (int i = 0; i < names.length; i++) {
      String candidate = names[i];
      if (candidate == key || candidate.hashCode() == hash && candidate.equals(key)) {
        Object value = valueAt(i);
        if (value != null) {
          return value;
        }
      }
    }
    return null;
  }

  /**
   * Whether a key starts with {@code spanprof.}; false guarantees that {@link #get} finds none.
   */
  public boolean namesSpanprofKeys() {
    return keys.namesSpanprofKeys;
  }

  /**
   * Where each of {@code lookup}'s keys is among these attributes: a position for {@link
   * #valueAt}, {@link KeyLookup#ABSENT} or {@link KeyLookup#REPEATED}. Found once per shared key
   * list, so reading a span's mapped attributes costs no search.
   */
  int[] positionsOf(KeyLookup lookup) {
    return keys.positionsOf(lookup);
  }

  private static long keyBit(int hash) {
    // The hash's high half folded into the six low bits that pick the bit.
    return 1L << ((hash ^ hash >>> 16) & 63);
  }

  /** The value at {@code position}, as {@link #get} would give it; null for an empty value. */
  Object valueAt(int position) {
    if (values != null) {
      return values[position];
    }
    return decoder.decode(encoding, valueRanges[2 * position], valueRanges[2 * position + 1]);
  }

  /** Every present key and its value, decoded: what equality and text compare. */
  private Attributes decoded() {
    if (values != null) {
      return this;
    }
    String[] names = keys.names;
    String[] presentKeys = new String[names.length];
    Object[] presentValues = new Object[names.length];
    int count = 0;
    for (int i = 0; i < names.length; i++) {
      Object value = valueAt(i);
      if (value != null) {
        presentKeys[count] = names[i];
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
    return Arrays.equals(a.keys.names, b.keys.names) && Arrays.deepEquals(a.values, b.values);
  }

  @Override
  public int hashCode() {
    Attributes a = decoded();
    return 31 * Arrays.hashCode(a.keys.names) + Arrays.deepHashCode(a.values);
  }

  @Override
  public String toString() {
    Attributes a = decoded();
    StringBuilder text = new StringBuilder("{");
    for (int i = 0; i < a.keys.names.length; i++) {
      if (i > 0) {
        text.append(", ");
      }
      Object value = a.values[i];
      text.append(a.keys.names[i]).append('=')
          .append(value instanceof byte[] bytes ? Arrays.toString(bytes) : value);
    }
    return text.append('}').toString();
  }
}
