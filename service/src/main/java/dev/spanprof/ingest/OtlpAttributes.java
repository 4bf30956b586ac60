package dev.spanprof.ingest;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.spanprof.otlp.InvalidOtlpException;
import dev.spanprof.otlp.WireReader;
import dev.spanprof.span.Attributes;
import dev.spanprof.span.SpanRecord;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * OTLP attributes (repeated {@code KeyValue}) read from their wire encoding: checked at ingest
 * without building anything, decoded into {@link Attributes} when asked (a span's own values
 * only once looked up).
 *
 * <p>Values become {@link String}, {@link Long}, {@link Double}, {@link Boolean}, {@code byte[]},
 * an unmodifiable {@link List} (array values, an empty element as null) or nested {@link
 * Attributes} (key-value lists); an attribute with an empty value is left out, the same as
 * absent for lookups. Strings that are not valid UTF-8 are decoded with replacement characters
 * rather than refused, as the OpenTelemetry Collector does; the forwarded span keeps its bytes.
 * Keys are interned.
 */
final class OtlpAttributes implements SpanRecord.AttributeDecoder {

  /** The deepest nesting of array and key-value-list values taken (protobuf's own limit is 100). */
  static final int MAX_DEPTH = 32;

  private static final int KEY = tag(KeyValue.KEY_FIELD_NUMBER, WireReader.LENGTH_DELIMITED);
  private static final int VALUE = tag(KeyValue.VALUE_FIELD_NUMBER, WireReader.LENGTH_DELIMITED);
  private static final int STRING = tag(AnyValue.STRING_VALUE_FIELD_NUMBER, WireReader.LENGTH_DELIMITED);
  private static final int BOOL = tag(AnyValue.BOOL_VALUE_FIELD_NUMBER, WireReader.VARINT);
  private static final int INT = tag(AnyValue.INT_VALUE_FIELD_NUMBER, WireReader.VARINT);
  private static final int DOUBLE = tag(AnyValue.DOUBLE_VALUE_FIELD_NUMBER, WireReader.FIXED64);
  private static final int ARRAY = tag(AnyValue.ARRAY_VALUE_FIELD_NUMBER, WireReader.LENGTH_DELIMITED);
  private static final int KVLIST = tag(AnyValue.KVLIST_VALUE_FIELD_NUMBER, WireReader.LENGTH_DELIMITED);
  private static final int BYTES = tag(AnyValue.BYTES_VALUE_FIELD_NUMBER, WireReader.LENGTH_DELIMITED);
  private static final int ARRAY_VALUES = tag(ArrayValue.VALUES_FIELD_NUMBER, WireReader.LENGTH_DELIMITED);
  /** KeyValueList.values, Resource.attributes: field 1. */
  static final int LIST_ENTRIES = tag(1, WireReader.LENGTH_DELIMITED);
  static final int SPAN_ATTRIBUTES = tag(Span.ATTRIBUTES_FIELD_NUMBER, WireReader.LENGTH_DELIMITED);

  private final StringInterner interner;
  /**
   * Each decoding thread's scratch space and key cache: only the finished attributes' arrays
   * are allocated.
   */
  private final ThreadLocal<EncodedEntries> encodedEntries;
  private final Attributes.ValueDecoder checkedValue = this::checkedValue;

  OtlpAttributes(StringInterner interner) {
    this.interner = interner;
    this.encodedEntries = ThreadLocal.withInitial(() -> new EncodedEntries(interner.threadCache()));
  }

  static int tag(int fieldNumber, int wireType) {
    return fieldNumber << 3 | wireType;
  }

  /**
   * A span's own attributes, from its encoding: the keys now, each value when asked for ({@link
   * Attributes#encoded}), since the analysis looks up a few keys and finds most of them absent.
   * The encoding was checked when the span was accepted ({@link #check}), so it decodes.
   */
  @Override
  public Attributes decode(byte[] buffer, int offset, int length) {
    try {
      EncodedEntries entries = spanEntries();
      WireReader in = new WireReader(buffer, offset, length);
      while (in.hasMore()) {
        int tag = in.readTag();
        if (tag == SPAN_ATTRIBUTES) {
          int entryLength = in.readLength();
          keyValueRanges(buffer, in.fieldOffset(), entryLength, entries, false);
        } else {
          in.skip(tag);
        }
      }
      return checked(buffer, entries);
    } catch (InvalidOtlpException e) {
      throw new IllegalStateException("a span checked when it was accepted does not decode", e);
    }
  }

  /**
   * One KeyValue's key, and where its value is encoded, added to {@code entries}; the value is
   * also checked (walked as {@link #anyValue} decodes it) when {@code checkValue}.
   */
  private void keyValueRanges(byte[] buffer, int offset, int length, EncodedEntries entries,
      boolean checkValue) throws InvalidOtlpException {
    WireReader in = new WireReader(buffer, offset, length);
    int keyOffset = offset; // no key field: the empty key
    int keyLength = 0;
    int valueOffset = -1;
    int valueLength = 0;
    while (in.hasMore()) {
      int tag = in.readTag();
      if (tag == KEY) {
        keyLength = in.readLength();
        keyOffset = in.fieldOffset();
      } else if (tag == VALUE) {
        valueLength = in.readLength();
        valueOffset = in.fieldOffset();
        if (checkValue) {
          anyValue(buffer, valueOffset, valueLength, false, 0);
        }
      } else {
        in.skip(tag);
      }
    }
    if (valueOffset >= 0) {
      entries.add(buffer, keyOffset, keyLength, valueOffset, valueLength);
    }
  }

  /** An AnyValue of a span that was checked when it was accepted. */
  private Object checkedValue(byte[] buffer, int offset, int length) {
    try {
      return anyValue(buffer, offset, length, true, 0);
    } catch (InvalidOtlpException e) {
      throw new IllegalStateException("a span checked when it was accepted does not decode", e);
    }
  }

  /** The attributes under field {@code entriesTag} of the message in {@code buffer[offset, +length)}. */
  Attributes decode(byte[] buffer, int offset, int length, int entriesTag) throws InvalidOtlpException {
    return read(buffer, offset, length, entriesTag, true, 0);
  }

  /**
   * The thread's scratch space for the attributes of one span, emptied: at ingest each entry
   * goes through {@link #check}, then {@link #checkedView} gives the attributes for the mapping;
   * {@link #decode} fills it the same way and gives them by {@link #checked}.
   */
  EncodedEntries spanEntries() {
    EncodedEntries entries = encodedEntries.get();
    entries.clear();
    return entries;
  }

  /**
   * Checks one encoded {@code KeyValue} (an entry of a span's attributes) and adds its key and
   * where its value is to {@code entries}, without decoding the value: what {@link #decode}
   * would find later, in the same walk that checks it.
   */
  void check(byte[] buffer, int offset, int length, EncodedEntries entries)
      throws InvalidOtlpException {
    keyValueRanges(buffer, offset, length, entries, true);
  }

  /**
   * The attributes in {@code entries} (of {@link #spanEntries}), their values decoded from
   * {@code buffer} when asked for: valid as long as the buffer is.
   */
  Attributes checked(byte[] buffer, EncodedEntries entries) {
    return entries.attributes(buffer, checkedValue);
  }

  /**
   * As {@link #checked}, read in place from {@code entries}: valid only until they are next
   * emptied ({@link #spanEntries}), for attributes read once where they are found. The ingest
   * walk maps each span so, without a copy of its value ranges (about 100 bytes a span).
   * {@code previous}, the view of the span before, is given back when it reads the same keys
   * from the same arrays, as the spans of one instrumentation in a request do.
   */
  Attributes checkedView(byte[] buffer, EncodedEntries entries, Attributes previous) {
    return entries.view(buffer, checkedValue, previous);
  }

  private Attributes read(byte[] buffer, int offset, int length, int entriesTag, boolean decode,
      int depth) throws InvalidOtlpException {
    Entries entries = decode ? new Entries() : null;
    WireReader in = new WireReader(buffer, offset, length);
    while (in.hasMore()) {
      int tag = in.readTag();
      if (tag == entriesTag) {
        int entryLength = in.readLength();
        keyValue(buffer, in.fieldOffset(), entryLength, entries, depth);
      } else {
        in.skip(tag);
      }
    }
    return decode ? entries.attributes() : null;
  }

  /** One KeyValue: added to {@code entries} when decoding (null: only checked). */
  private void keyValue(byte[] buffer, int offset, int length, Entries entries, int depth)
      throws InvalidOtlpException {
    WireReader in = new WireReader(buffer, offset, length);
    String key = "";
    Object value = null;
    while (in.hasMore()) {
      int tag = in.readTag();
      if (tag == KEY) {
        int keyLength = in.readLength();
        key = entries == null ? null : interner.intern(buffer, in.fieldOffset(), keyLength);
      } else if (tag == VALUE) {
        int valueLength = in.readLength();
        value = anyValue(buffer, in.fieldOffset(), valueLength, entries != null, depth);
      } else {
        in.skip(tag);
      }
    }
    if (entries != null && value != null) {
      entries.add(key, value);
    }
  }

  /** An AnyValue: its value when decoding (null for an empty one); null after only checking. */
  private Object anyValue(byte[] buffer, int offset, int length, boolean decode, int depth)
      throws InvalidOtlpException {
    if (depth > MAX_DEPTH) {
      throw new InvalidOtlpException("attribute values nested deeper than " + MAX_DEPTH + " levels");
    }
    WireReader in = new WireReader(buffer, offset, length);
    Object value = null; // a oneof: the last member present wins, as in protobuf
    while (in.hasMore()) {
      int tag = in.readTag();
      if (tag == STRING) {
        int n = in.readLength();
        value = decode ? new String(buffer, in.fieldOffset(), n, UTF_8) : null;
      } else if (tag == BOOL) {
        long bool = in.readVarint();
        value = decode ? Boolean.valueOf(bool != 0) : null;
      } else if (tag == INT) {
        long integer = in.readVarint();
        value = decode ? Long.valueOf(integer) : null;
      } else if (tag == DOUBLE) {
        long bits = in.readFixed64();
        value = decode ? Double.valueOf(Double.longBitsToDouble(bits)) : null;
      } else if (tag == ARRAY) {
        int n = in.readLength();
        value = array(buffer, in.fieldOffset(), n, decode, depth + 1);
      } else if (tag == KVLIST) {
        int n = in.readLength();
        value = read(buffer, in.fieldOffset(), n, LIST_ENTRIES, decode, depth + 1);
      } else if (tag == BYTES) {
        int n = in.readLength();
        value = decode ? Arrays.copyOfRange(buffer, in.fieldOffset(), in.fieldOffset() + n) : null;
      } else {
        in.skip(tag); // a kind newer than this reader: absent here, still in the encoded span
      }
    }
    return value;
  }

  private List<Object> array(byte[] buffer, int offset, int length, boolean decode, int depth)
      throws InvalidOtlpException {
    List<Object> elements = decode ? new ArrayList<>() : null;
    WireReader in = new WireReader(buffer, offset, length);
    while (in.hasMore()) {
      int tag = in.readTag();
      if (tag == ARRAY_VALUES) {
        int n = in.readLength();
        Object element = anyValue(buffer, in.fieldOffset(), n, decode, depth);
        if (decode) {
          elements.add(element);
        }
      } else {
        in.skip(tag);
      }
    }
    return decode ? Collections.unmodifiableList(elements) : null;
  }

  /** Keys and values as they are decoded, in two growing arrays. */
  private static final class Entries {
    private String[] keys = new String[16];
    private Object[] values = new Object[16];
    private int size;

    void add(String key, Object value) {
      if (size == keys.length) {
        keys = Arrays.copyOf(keys, size * 2);
        values = Arrays.copyOf(values, size * 2);
      }
      keys[size] = key;
      values[size] = value;
      size++;
    }

    Attributes attributes() {
      return size == 0 ? Attributes.empty()
          : Attributes.wrap(Arrays.copyOf(keys, size), Arrays.copyOf(values, size));
    }
  }

  /** Keys and where their values are encoded, in growing arrays. */
  static final class EncodedEntries {
    /** Recent key lists, a slot per hash; enough for the instrumentations of a fleet's spans. */
    private static final int RECENT_KEYS = 64;
    /**
     * Slots for the latest key lists, by their first key: spans of a few instrumentations
     * interleave in a request (a server span, its client and database spans), each
     * instrumentation's keys in its own order, mostly each with a first key of its own.
     */
    private static final int LATEST_SLOT_BITS = 6;

    /** Where this thread's keys are interned. */
    private final StringInterner.ThreadCache keys;
    private String[] entryKeys = new String[16];
    /** Per entry, its value's offset and length. */
    private int[] valueRanges = new int[32];
    /** Per entry, its key's offset and length: its bytes, for a key list not seen recently. */
    private int[] keyRanges = new int[32];
    private int size;
    /**
     * The keys of recent spans: a span with the same keys as one before shares that span's
     * {@link Attributes.Keys} (the interned keys compare by identity).
     */
    private final KnownKeys[] recentKeys = new KnownKeys[RECENT_KEYS];
    /**
     * The latest key lists by their first key's slot ({@link #latestSlot}): a span's first key
     * picks the one list its keys are compared with, without a search. Only a list not there
     * already is stored (a reference stored is a GC write barrier).
     */
    private final KnownKeys[] latestKeys = new KnownKeys[1 << LATEST_SLOT_BITS];
    /** The key list this span's keys are compared with, null when none is. */
    private KnownKeys candidate;
    /** Whether every key so far was the one the candidate has at its position. */
    private boolean keysAsBefore;

    /**
     * A key list with its keys' bytes. A span's keys mostly come in the order of one of the
     * latest spans', and comparing bytes with those is cheaper than hashing them to look them up.
     * Nothing here is written per key (each reference stored is a GC write barrier).
     */
    private record KnownKeys(Attributes.Keys keys, String[] names, byte[][] bytes) {}

    EncodedEntries(StringInterner.ThreadCache keys) {
      this.keys = keys;
    }

    void clear() {
      size = 0;
      candidate = null;
      keysAsBefore = true;
    }

    /** Adds an entry: its key, in {@code buffer[keyOffset, +keyLength)}, and its value's range. */
    void add(byte[] buffer, int keyOffset, int keyLength, int valueOffset, int valueLength) {
      if (size == entryKeys.length) {
        entryKeys = Arrays.copyOf(entryKeys, size * 2);
        valueRanges = Arrays.copyOf(valueRanges, size * 4);
        keyRanges = Arrays.copyOf(keyRanges, size * 4);
      }
      entryKeys[size] = key(buffer, keyOffset, keyLength);
      valueRanges[2 * size] = valueOffset;
      valueRanges[2 * size + 1] = valueLength;
      keyRanges[2 * size] = keyOffset;
      keyRanges[2 * size + 1] = keyLength;
      size++;
    }

    /** The interned key in {@code buffer[offset, +length)}, for the entry being added. */
    private String key(byte[] buffer, int offset, int length) {
      if (size == 0) {
        // The first key picks the list to compare with.
        KnownKeys latest = latestKeys[latestSlot(buffer, offset, length)];
        if (matches(latest, 0, buffer, offset, length)) {
          candidate = latest;
          return latest.names[0];
        }
      } else if (keysAsBefore && matches(candidate, size, buffer, offset, length)) {
        return candidate.names[size];
      }
      // Past the first key that differs the rest mostly do too (a key added or left out): they
      // go straight to the cache.
      keysAsBefore = false;
      return keys.intern(buffer, offset, length);
    }

    /**
     * The slot in latestKeys of a list whose first key is {@code buffer[offset, +length)}: from
     * its length, middle byte and last byte, which tell most keys apart without hashing them all.
     */
    private static int latestSlot(byte[] buffer, int offset, int length) {
      if (length == 0) {
        return 0;
      }
      int mixed = length * 0x9E3779B1 ^ (buffer[offset + length - 1] & 0xFF) << 16
          ^ (buffer[offset + length / 2] & 0xFF) << 8;
      return (mixed * 0x9E3779B1) >>> (Integer.SIZE - LATEST_SLOT_BITS);
    }

    /** Whether {@code known} has the key in {@code buffer[offset, +length)} at {@code position}. */
    private static boolean matches(KnownKeys known, int position, byte[] buffer, int offset,
        int length) {
      if (known == null || position >= known.names.length) {
        return false;
      }
      byte[] bytes = known.bytes[position];
      return bytes.length == length && Arrays.equals(bytes, 0, length, buffer, offset, offset + length);
    }

    Attributes attributes(byte[] encoding, Attributes.ValueDecoder decoder) {
      return Attributes.encoded(sharedKeys(encoding), encoding,
          Arrays.copyOf(valueRanges, 2 * size), decoder);
    }

    /**
     * As {@link #attributes}, reading this scratch space's ranges: valid until it is cleared;
     * {@code previous} when that already reads them so.
     */
    Attributes view(byte[] encoding, Attributes.ValueDecoder decoder, Attributes previous) {
      Attributes.Keys keys = sharedKeys(encoding);
      return previous.viewOf(keys, encoding, valueRanges, decoder) ? previous
          : Attributes.encodedView(keys, encoding, valueRanges, decoder);
    }

    private Attributes.Keys sharedKeys(byte[] encoding) {
      if (keysAsBefore && candidate != null && candidate.names.length == size) {
        return candidate.keys;
      }
      int keysHash = 0;
      for (int i = 0; i < size; i++) {
        keysHash = 31 * keysHash + entryKeys[i].hashCode();
      }
      int slot = (keysHash ^ keysHash >>> 16) & (RECENT_KEYS - 1);
      KnownKeys known = recentKeys[slot];
      if (known == null || !known.keys.sameAs(entryKeys, size)) {
        String[] names = Arrays.copyOf(entryKeys, size);
        byte[][] bytes = new byte[size][];
        for (int i = 0; i < size; i++) {
          bytes[i] = Arrays.copyOfRange(encoding, keyRanges[2 * i], keyRanges[2 * i] + keyRanges[2 * i + 1]);
        }
        known = new KnownKeys(Attributes.Keys.of(names), names, bytes);
        recentKeys[slot] = known;
      }
      if (size > 0) {
        byte[] first = known.bytes[0];
        int latest = latestSlot(first, 0, first.length);
        if (latestKeys[latest] != known) {
          latestKeys[latest] = known;
        }
      }
      return known.keys;
    }
  }
}
