package dev.spanprof.export;

import com.google.protobuf.CodedOutputStream;
import dev.spanprof.analysis.SpanRecord;
import dev.spanprof.analysis.TraceProfile;
import dev.spanprof.analysis.TraceProfile.SpanProfile;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.assembly.Completion;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleBiFunction;

/**
 * Adds the contract's enriched span attributes to each span of an analysed trace.
 *
 * <p>The span is not parsed and rebuilt: its original encoded bytes are kept as they are and the
 * new attributes are appended as further encodings of the repeated {@code attributes} field
 * (protobuf concatenates repeated fields), so every original field — unknown ones included —
 * reaches the next hop unchanged. An attribute the span already carries is not added again.
 */
final class SpanEnricher {

  private final ToDoubleBiFunction<SpanRecord, Long> durationPercentile;

  /**
   * @param durationPercentile the rank (0–100) of a span's duration within its operation's
   *     distribution ({@code spanprof.duration_percentile})
   */
  SpanEnricher(ToDoubleBiFunction<SpanRecord, Long> durationPercentile) {
    this.durationPercentile = durationPercentile;
  }

  List<ExportEntry> enrich(CompletedTrace trace, TraceProfile profile) {
    List<SpanRecord> spans = trace.spans();
    List<ExportEntry> entries = new ArrayList<>(spans.size());
    for (int i = 0; i < spans.size(); i++) {
      SpanRecord span = spans.get(i);
      SpanProfile result = profile.spans().get(i);
      Attributes added = new Attributes(span);
      added.string("spanprof.resource", result.resource());
      added.string("spanprof.state", result.state());
      added.integer("spanprof.self_time_ns", result.selfTimeNs());
      added.integer("spanprof.critical_path_ns", result.criticalPathNs());
      added.bool("spanprof.on_critical_path", result.onCriticalPath());
      added.number("spanprof.duration_percentile",
          durationPercentile.applyAsDouble(span, span.durationNanos()));
      if (i == profile.primaryRoot()) {
        added.integer("spanprof.trace.span_time_ns", profile.spanTimeNs());
        added.integer("spanprof.trace.resource_time_ns", profile.resourceTimeNs());
        added.integer("spanprof.trace.ttx_ns", profile.ttxNs());
        added.integer("spanprof.trace.ttc_ns", profile.ttcNs());
        added.number("spanprof.trace.parallelism", profile.parallelism());
        added.bool("spanprof.trace.complete", complete(trace, span));
      }
      entries.add(new ExportEntry(span.resource(), span.scope(), added.appendTo(span.encoded())));
    }
    return entries;
  }

  /** False when the trace's real root never arrived, or it was cut short or is a fragment. */
  private static boolean complete(CompletedTrace trace, SpanRecord primaryRoot) {
    return primaryRoot.parentSpanId() == 0
        && !trace.fragment()
        && trace.completion() != Completion.EVICTED
        && trace.completion() != Completion.SPAN_LIMIT;
  }

  /** The attributes to append to one span, skipping keys it already has. */
  private static final class Attributes {
    private final SpanRecord span;
    private final List<KeyValue> values = new ArrayList<>(12);

    Attributes(SpanRecord span) {
      this.span = span;
    }

    void string(String key, String value) {
      add(key, AnyValue.newBuilder().setStringValue(value));
    }

    void integer(String key, long value) {
      add(key, AnyValue.newBuilder().setIntValue(value));
    }

    void number(String key, double value) {
      add(key, AnyValue.newBuilder().setDoubleValue(value));
    }

    void bool(String key, boolean value) {
      add(key, AnyValue.newBuilder().setBoolValue(value));
    }

    private void add(String key, AnyValue.Builder value) {
      if (span.attributes().get(key) == null) {
        values.add(KeyValue.newBuilder().setKey(key).setValue(value).build());
      }
    }

    byte[] appendTo(byte[] original) {
      try {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(original.length + 48 * values.size());
        bytes.write(original);
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        for (KeyValue value : values) {
          out.writeMessage(Span.ATTRIBUTES_FIELD_NUMBER, value);
        }
        out.flush();
        return bytes.toByteArray();
      } catch (IOException e) {
        throw new UncheckedIOException("writing to memory failed", e);
      }
    }
  }
}
