package dev.spanprof.export;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import dev.spanprof.analysis.Slab;
import dev.spanprof.analysis.SpanRecord;
import dev.spanprof.analysis.TraceProfile;
import dev.spanprof.analysis.TraceProfile.SpanProfile;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.assembly.Completion;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;

/**
 * Adds the contract's enriched span attributes to each span of an analysed trace.
 *
 * <p>The span is not parsed and rebuilt: its original encoded bytes are kept as they are and the
 * new attributes are appended as further encodings of the repeated {@code attributes} field
 * (protobuf concatenates repeated fields), so every original field — unknown ones included —
 * reaches the next hop unchanged. An attribute the span already carries is not added again.
 * Only the appended bytes are new: the export request writes them after the original's.
 */
final class SpanEnricher {

  private final ToDoubleFunction<SpanRecord> durationPercentile;

  /**
   * @param durationPercentile the rank (0–100) of a span's duration within its operation's
   *     distribution ({@code spanprof.duration_percentile})
   */
  SpanEnricher(ToDoubleFunction<SpanRecord> durationPercentile) {
    this.durationPercentile = durationPercentile;
  }

  List<ExportEntry> enrich(CompletedTrace trace, TraceProfile profile) {
    List<SpanRecord> spans = trace.spans();
    List<ExportEntry> entries = new ArrayList<>(spans.size());
    Attributes attributes = new Attributes();
    for (int i = 0; i < spans.size(); i++) {
      SpanRecord span = spans.get(i);
      SpanProfile result = profile.spans().get(i);
      Attributes added = attributes.of(span);
      added.string("spanprof.resource", result.resource());
      added.string("spanprof.state", result.state());
      added.integer("spanprof.self_time_ns", result.selfTimeNs());
      added.integer("spanprof.critical_path_ns", result.criticalPathNs());
      added.bool("spanprof.on_critical_path", result.onCriticalPath());
      added.number("spanprof.duration_percentile",
          durationPercentile.applyAsDouble(span));
      if (i == profile.primaryRoot()) {
        added.integer("spanprof.trace.span_time_ns", profile.spanTimeNs());
        added.integer("spanprof.trace.resource_time_ns", profile.resourceTimeNs());
        added.integer("spanprof.trace.ttx_ns", profile.ttxNs());
        added.integer("spanprof.trace.ttc_ns", profile.ttcNs());
        added.number("spanprof.trace.parallelism", profile.parallelism());
        added.bool("spanprof.trace.complete", complete(trace, span));
      }
      entries.add(ExportEntry.of(span, added.encode()));
    }
    Slab.retain(entries, ExportEntry::slab);
    return entries;
  }

  /** False when the trace's real root never arrived, or it was cut short or is a fragment. */
  private static boolean complete(CompletedTrace trace, SpanRecord primaryRoot) {
    return primaryRoot.parentSpanId() == 0
        && !trace.fragment()
        && trace.completion() != Completion.EVICTED
        && trace.completion() != Completion.SPAN_LIMIT;
  }

  /**
   * The attributes to append to one span, skipping keys it already has, encoded by hand into one
   * exactly sized array: building {@code KeyValue} messages and streaming them cost several
   * kilobytes of garbage per span (the stream's own 4 KB buffer among them). Strings are UTF-8
   * encoded once: the keys for good, the values (resource ids, states) once per trace, whose
   * spans repeat the same few.
   */
  private static final class Attributes {
    private static final Map<String, byte[]> ENCODED_KEYS = new ConcurrentHashMap<>();

    // AnyValue's oneof field numbers, which also name the value's type here.
    private static final int STRING = 1;
    private static final int BOOL = 2;
    private static final int INT = 3;
    private static final int DOUBLE = 4;
    private static final int KEY_FIELD = 1;
    private static final int VALUE_FIELD = 2;
    private static final int MAX_ATTRIBUTES = 12;

    private final byte[][] keys = new byte[MAX_ATTRIBUTES][];
    private final int[] types = new int[MAX_ATTRIBUTES];
    private final byte[][] strings = new byte[MAX_ATTRIBUTES][];
    private final Map<String, byte[]> encodedValues = new IdentityHashMap<>();
    private final long[] numbers = new long[MAX_ATTRIBUTES];
    // Sizes of each KeyValue and of its AnyValue: measured once, then written as lengths.
    private final int[] keyValueBytes = new int[MAX_ATTRIBUTES];
    private final int[] valueBytes = new int[MAX_ATTRIBUTES];
    private SpanRecord span;
    private int count;

    /** Starts the attributes of the next span. */
    Attributes of(SpanRecord next) {
      span = next;
      count = 0;
      return this;
    }

    void string(String key, String value) {
      add(key, STRING, value, 0);
    }

    void integer(String key, long value) {
      add(key, INT, null, value);
    }

    void number(String key, double value) {
      add(key, DOUBLE, null, Double.doubleToRawLongBits(value));
    }

    void bool(String key, boolean value) {
      add(key, BOOL, null, value ? 1 : 0);
    }

    private void add(String key, int type, String text, long number) {
      if (span.attributes().get(key) == null) {
        keys[count] = ENCODED_KEYS.computeIfAbsent(key, k -> k.getBytes(UTF_8));
        types[count] = type;
        strings[count] = text == null ? null
            : encodedValues.computeIfAbsent(text, k -> k.getBytes(UTF_8));
        numbers[count] = number;
        count++;
      }
    }

    /** The attributes as {@code Span.attributes} fields, to follow the span's own bytes. */
    byte[] encode() {
      int appendedBytes = 0;
      for (int i = 0; i < count; i++) {
        valueBytes[i] = valueSize(i);
        keyValueBytes[i] = CodedOutputStream.computeByteArraySize(KEY_FIELD, keys[i])
            + CodedOutputStream.computeTagSize(VALUE_FIELD)
            + sizeWithLength(valueBytes[i]);
        appendedBytes += CodedOutputStream.computeTagSize(Span.ATTRIBUTES_FIELD_NUMBER)
            + sizeWithLength(keyValueBytes[i]);
      }
      byte[] appended = new byte[appendedBytes];
      CodedOutputStream out = CodedOutputStream.newInstance(appended);
      try {
        for (int i = 0; i < count; i++) {
          out.writeTag(Span.ATTRIBUTES_FIELD_NUMBER, WireFormat.WIRETYPE_LENGTH_DELIMITED);
          out.writeUInt32NoTag(keyValueBytes[i]);
          out.writeByteArray(KEY_FIELD, keys[i]);
          out.writeTag(VALUE_FIELD, WireFormat.WIRETYPE_LENGTH_DELIMITED);
          out.writeUInt32NoTag(valueBytes[i]);
          writeValue(out, i);
        }
        out.checkNoSpaceLeft();
      } catch (IOException e) {
        throw new UncheckedIOException("the attributes' computed size was wrong", e);
      }
      return appended;
    }

    private int valueSize(int i) {
      return switch (types[i]) {
        case STRING -> CodedOutputStream.computeByteArraySize(STRING, strings[i]);
        case BOOL -> CodedOutputStream.computeBoolSize(BOOL, numbers[i] != 0);
        case INT -> CodedOutputStream.computeInt64Size(INT, numbers[i]);
        default -> CodedOutputStream.computeDoubleSize(DOUBLE, Double.longBitsToDouble(numbers[i]));
      };
    }

    private void writeValue(CodedOutputStream out, int i) throws IOException {
      switch (types[i]) {
        case STRING -> out.writeByteArray(STRING, strings[i]);
        case BOOL -> out.writeBool(BOOL, numbers[i] != 0);
        case INT -> out.writeInt64(INT, numbers[i]);
        default -> out.writeDouble(DOUBLE, Double.longBitsToDouble(numbers[i]));
      }
    }

    private static int sizeWithLength(int messageBytes) {
      return CodedOutputStream.computeUInt32SizeNoTag(messageBytes) + messageBytes;
    }
  }
}
