package dev.spanprof.export;

import static dev.spanprof.span.Attributes.SPANPROF_PREFIX;
import static java.nio.charset.StandardCharsets.UTF_8;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.analysis.trace.TraceProfile.SpanProfile;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.store.Slab;
import dev.spanprof.span.store.SpanStore;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * Adds the contract's enriched span attributes to each span of an analysed trace.
 *
 * <p>The span is not parsed and rebuilt: its original encoded bytes are kept as they are and the
 * new attributes are appended as further encodings of the repeated {@code attributes} field
 * (protobuf concatenates repeated fields), so every original field — unknown ones included —
 * reaches the next hop unchanged. An attribute the span already carries is not added again.
 * Only the appended bytes are new, and they are kept in the {@link SpanStore} like the
 * originals, since flat out they wait in the forwarding queue long enough to be promoted: the
 * export request writes them after the original's.
 */
final class SpanEnricher {

  // The contract's enriched span attributes.
  private static final Key RESOURCE = new Key("spanprof.resource");
  private static final Key STATE = new Key("spanprof.state");
  private static final Key SELF_TIME = new Key("spanprof.self_time_ns");
  private static final Key CRITICAL_PATH = new Key("spanprof.critical_path_ns");
  private static final Key ON_CRITICAL_PATH = new Key("spanprof.on_critical_path");
  private static final Key DURATION_PERCENTILE = new Key("spanprof.duration_percentile");
  private static final Key TRACE_SPAN_TIME = new Key("spanprof.trace.span_time_ns");
  private static final Key TRACE_RESOURCE_TIME = new Key("spanprof.trace.resource_time_ns");
  private static final Key TRACE_TTX = new Key("spanprof.trace.ttx_ns");
  private static final Key TRACE_TTC = new Key("spanprof.trace.ttc_ns");
  private static final Key TRACE_PARALLELISM = new Key("spanprof.trace.parallelism");
  private static final Key TRACE_COMPLETE = new Key("spanprof.trace.complete");

  private final ToDoubleFunction<SpanRecord> durationPercentile;
  private final SpanStore store;
  /** Each analysis thread's scratch space, used again for every trace it enriches. */
  private final ThreadLocal<Attributes> attributesOfThread = ThreadLocal.withInitial(Attributes::new);

  /**
   * @param durationPercentile the rank (0–100) of a span's duration within its operation's
   *     distribution ({@code spanprof.duration_percentile})
   * @param store where the appended bytes are kept while the spans wait to be forwarded
   */
  SpanEnricher(ToDoubleFunction<SpanRecord> durationPercentile, SpanStore store) {
    this.durationPercentile = durationPercentile;
    this.store = store;
  }

  /**
   * The trace's spans to forward (those whose origin forwards them), each holding its original bytes and its appended attributes
   * until {@link ExportEntry#release released}.
   */
  List<ExportEntry> enrich(CompletedTrace trace, TraceProfile profile) {
    List<SpanRecord> spans = trace.spans();
    List<ExportEntry> entries = new ArrayList<>(spans.size());
    Attributes attributes = attributesOfThread.get().ofTrace();
    try (SpanStore.Writer writer = store.appendWriter()) {
      for (int i = 0; i < spans.size(); i++) {
        SpanRecord span = spans.get(i);
        if (!span.origin().forwards()) {
          continue; // read again only to rebuild the windows: its first reader forwarded it
        }
        SpanProfile result = profile.spans().get(i);
        Attributes added = attributes.of(span);
        added.string(RESOURCE, result.resource());
        added.string(STATE, result.state());
        added.integer(SELF_TIME, result.selfTimeNs());
        added.integer(CRITICAL_PATH, result.criticalPathNs());
        added.bool(ON_CRITICAL_PATH, result.onCriticalPath());
        added.number(DURATION_PERCENTILE,
            durationPercentile.applyAsDouble(span));
        if (i == profile.primaryRoot()) {
          added.integer(TRACE_SPAN_TIME, profile.spanTimeNs());
          added.integer(TRACE_RESOURCE_TIME, profile.resourceTimeNs());
          added.integer(TRACE_TTX, profile.ttxNs());
          added.integer(TRACE_TTC, profile.ttcNs());
          added.number(TRACE_PARALLELISM, profile.parallelism());
          added.bool(TRACE_COMPLETE, trace.isComplete(span, profile.orphanCount()));
        }
        entries.add(added.encode(writer));
      }
    } catch (RuntimeException e) {
      Slab.release(entries, ExportEntry::appendedSlab);
      throw e;
    }
    Slab.retain(entries, ExportEntry::slab);
    return entries;
  }

  /** An attribute's key, and its UTF-8 encoding, made once. */
  private static final class Key {
    final String name;
    final byte[] utf8;

    Key(String name) {
      // A span is looked into for a key it may already have only when it names a key under this
      // prefix (SpanRecord.mayNameSpanprofKeys): a key outside it would be added twice.
      if (!name.startsWith(SPANPROF_PREFIX)) {
        throw new IllegalArgumentException("an enrichment key must start with "
            + SPANPROF_PREFIX + ", was " + name);
      }
      this.name = name;
      this.utf8 = name.getBytes(UTF_8);
    }
  }

  /**
   * The attributes to append to one span, skipping keys it already has, encoded by hand into an
   * exactly sized range of the span store: building {@code KeyValue} messages and streaming them
   * cost several kilobytes of garbage per span (the stream's own 4 KB buffer among them). Strings
   * are UTF-8 encoded once: the keys for good, the values (resource ids, states) once per trace,
   * whose spans repeat the same few. One per analysis thread, used for trace after trace.
   */
  private static final class Attributes {
    // AnyValue's oneof field numbers, which also name the value's type here.
    private static final int STRING = 1;
    private static final int BOOL = 2;
    private static final int INT = 3;
    private static final int DOUBLE = 4;
    private static final int KEY_FIELD = 1;
    private static final int VALUE_FIELD = 2;
    private static final int MAX_ATTRIBUTES = 12;
    private static final int ATTRIBUTE_TAG =
        tag(Span.ATTRIBUTES_FIELD_NUMBER, WireFormat.WIRETYPE_LENGTH_DELIMITED);
    private static final int KEY_TAG = tag(KEY_FIELD, WireFormat.WIRETYPE_LENGTH_DELIMITED);
    private static final int VALUE_TAG = tag(VALUE_FIELD, WireFormat.WIRETYPE_LENGTH_DELIMITED);

    private final byte[][] keys = new byte[MAX_ATTRIBUTES][];
    private final int[] types = new int[MAX_ATTRIBUTES];
    private final byte[][] strings = new byte[MAX_ATTRIBUTES][];
    private final Map<String, byte[]> encodedValues = new IdentityHashMap<>();
    private final long[] numbers = new long[MAX_ATTRIBUTES];
    // Sizes of each KeyValue and of its AnyValue: measured once, then written as lengths.
    private final int[] keyValueBytes = new int[MAX_ATTRIBUTES];
    private final int[] valueBytes = new int[MAX_ATTRIBUTES];
    private SpanRecord span;
    /**
     * Whether the span may already have one of the keys: unless its mapping at ingest saw a
     * {@code spanprof.} key, finding out would decode its attributes from memory for nothing.
     */
    private boolean mayHaveKeys;
    private int count;

    /** Starts the next trace: its values are other strings. */
    Attributes ofTrace() {
      encodedValues.clear();
      return this;
    }

    /** Starts the attributes of the next span. */
    Attributes of(SpanRecord next) {
      span = next;
      mayHaveKeys = next.mayNameSpanprofKeys();
      count = 0;
      return this;
    }

    void string(Key key, String value) {
      add(key, STRING, value, 0);
    }

    void integer(Key key, long value) {
      add(key, INT, null, value);
    }

    void number(Key key, double value) {
      add(key, DOUBLE, null, Double.doubleToRawLongBits(value));
    }

    void bool(Key key, boolean value) {
      add(key, BOOL, null, value ? 1 : 0);
    }

    private void add(Key key, int type, String text, long number) {
      if (!mayHaveKeys || span.attributes().get(key.name) == null) {
        keys[count] = key.utf8;
        types[count] = type;
        strings[count] = text == null ? null
            : encodedValues.computeIfAbsent(text, k -> k.getBytes(UTF_8));
        numbers[count] = number;
        count++;
      }
    }

    /**
     * The span with the attributes as {@code Span.attributes} fields to follow its own bytes,
     * written into a range {@code writer} reserves (an array of their own when the store has no
     * room).
     */
    ExportEntry encode(SpanStore.Writer writer) {
      int appendedBytes = 0;
      for (int i = 0; i < count; i++) {
        valueBytes[i] = valueSize(i);
        keyValueBytes[i] = CodedOutputStream.computeByteArraySize(KEY_FIELD, keys[i])
            + CodedOutputStream.computeTagSize(VALUE_FIELD)
            + sizeWithLength(valueBytes[i]);
        appendedBytes += CodedOutputStream.computeTagSize(Span.ATTRIBUTES_FIELD_NUMBER)
            + sizeWithLength(keyValueBytes[i]);
      }
      int offset = writer.reserve(appendedBytes);
      Slab slab = offset < 0 ? null : writer.slab();
      byte[] appended = slab == null ? new byte[appendedBytes] : slab.bytes();
      offset = Math.max(offset, 0);
      int at = offset;
      for (int i = 0; i < count; i++) {
        at = varint(appended, at, ATTRIBUTE_TAG);
        at = varint(appended, at, keyValueBytes[i]);
        at = varint(appended, at, KEY_TAG);
        at = bytes(appended, at, keys[i]);
        at = varint(appended, at, VALUE_TAG);
        at = varint(appended, at, valueBytes[i]);
        at = value(appended, at, i);
      }
      if (at != offset + appendedBytes) {
        throw new IllegalStateException("the attributes' computed size was wrong: "
            + appendedBytes + " computed, " + (at - offset) + " written");
      }
      SpanRecord done = span;
      span = null; // not kept alive by the thread's scratch space until its next trace
      return ExportEntry.enriched(done, appended, offset, appendedBytes, slab);
    }

    private int valueSize(int i) {
      return switch (types[i]) {
        case STRING -> CodedOutputStream.computeByteArraySize(STRING, strings[i]);
        case BOOL -> CodedOutputStream.computeBoolSize(BOOL, numbers[i] != 0);
        case INT -> CodedOutputStream.computeInt64Size(INT, numbers[i]);
        default -> CodedOutputStream.computeDoubleSize(DOUBLE, Double.longBitsToDouble(numbers[i]));
      };
    }

    /*
     * protobuf's wire format written by hand into the reserved range, since CodedOutputStream's
     * array encoder is an object per span; the sizes above come from CodedOutputStream, and
     * ExportPiecesTest checks the bytes against its encoding.
     */
    private int value(byte[] out, int at, int i) {
      long number = numbers[i];
      return switch (types[i]) {
        case STRING -> bytes(out, varint(out, at, tag(STRING, WireFormat.WIRETYPE_LENGTH_DELIMITED)),
            strings[i]);
        case BOOL -> varint(out, varint(out, at, tag(BOOL, WireFormat.WIRETYPE_VARINT)), number);
        case INT -> varint(out, varint(out, at, tag(INT, WireFormat.WIRETYPE_VARINT)), number);
        default -> fixed64(out, varint(out, at, tag(DOUBLE, WireFormat.WIRETYPE_FIXED64)), number);
      };
    }

    /** {@code bytes} with its length first. */
    private static int bytes(byte[] out, int at, byte[] bytes) {
      at = varint(out, at, bytes.length);
      System.arraycopy(bytes, 0, out, at, bytes.length);
      return at + bytes.length;
    }

    /** A varint; negative numbers take ten bytes, as protobuf's int64 does. */
    private static int varint(byte[] out, int at, long value) {
      while ((value & ~0x7FL) != 0) {
        out[at++] = (byte) ((value & 0x7F) | 0x80);
        value >>>= 7;
      }
      out[at++] = (byte) value;
      return at;
    }

    private static int fixed64(byte[] out, int at, long value) {
      for (int shift = 0; shift < 64; shift += 8) {
        out[at++] = (byte) (value >>> shift);
      }
      return at;
    }

    private static int tag(int fieldNumber, int wireType) {
      return fieldNumber << 3 | wireType;
    }

    private static int sizeWithLength(int messageBytes) {
      return CodedOutputStream.computeUInt32SizeNoTag(messageBytes) + messageBytes;
    }
  }
}
