package dev.spanprof.analysis.trace;

import dev.spanprof.span.Attributes;
import dev.spanprof.span.SpanKind;
import dev.spanprof.span.SpanMapping;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.SpanResource;
import dev.spanprof.span.SpanScope;
import dev.spanprof.span.SpanStatus;
import dev.spanprof.span.TraceId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds traces for analysis tests by name: spans of service {@code svc}, instance {@code i1},
 * so a span's resource is {@code svc/i1/<thread>} and its pool {@code svc/i1}. A name is the
 * span's key; its operation name is the part before any {@code #} ({@code "A#2"} is a second
 * span of operation {@code A}).
 */
public final class TraceBuilder {

  public static final TraceId TRACE = new TraceId(0xAB, 0xCD);
  private static final SpanResource RESOURCE = new SpanResource("svc",
      Attributes.wrap(new String[] {"service.name", "service.instance.id"}, new Object[] {"svc", "i1"}),
      "", new byte[0]);
  private static final SpanScope SCOPE = new SpanScope("test", "", Attributes.empty(), "", new byte[0]);

  private final List<SpanRecord> spans = new ArrayList<>();
  private final Map<String, Long> ids = new HashMap<>();

  /** Gives the span named {@code name} the id {@code spanId} instead of the next small one. */
  public TraceBuilder id(String name, long spanId) {
    ids.put(name, spanId);
    return this;
  }

  /** A span on thread {@code thread}; {@code parent} null for none; attributes as key, value. */
  public TraceBuilder span(String name, String parent, String thread, long start, long end,
      Object... attributes) {
    return add(name, parent, thread, start, end, SpanKind.INTERNAL, attributes);
  }

  /** A span as {@link #span} makes, its status ERROR. */
  public TraceBuilder failed(String name, String parent, String thread, long start, long end) {
    return add(name, parent, thread, start, end, SpanKind.INTERNAL, SpanStatus.ERROR);
  }

  public TraceBuilder add(String name, String parent, String thread, long start, long end, SpanKind kind,
      Object... attributes) {
    return add(name, parent, thread, start, end, kind, SpanStatus.UNSET, attributes);
  }

  private TraceBuilder add(String name, String parent, String thread, long start, long end,
      SpanKind kind, SpanStatus status, Object... attributes) {
    long id = ids.computeIfAbsent(name, unused -> (long) ids.size() + 1);
    String[] keys = new String[attributes.length / 2 + 1];
    Object[] values = new Object[keys.length];
    keys[0] = "thread.id";
    values[0] = thread;
    for (int i = 0; i < attributes.length; i += 2) {
      keys[i / 2 + 1] = (String) attributes[i];
      values[i / 2 + 1] = attributes[i + 1];
    }
    spans.add(SpanRecord.builder()
        .setTraceId(TRACE.high(), TRACE.low())
        .setSpanId(id)
        .setParentSpanId(parent == null ? 0 : ids.computeIfAbsent(parent, unused -> 1000L + ids.size()))
        .setName(name.contains("#") ? name.substring(0, name.indexOf('#')) : name)
        .setKind(kind)
        .setStatus(status)
        .setStartNanos(start)
        .setEndNanos(end)
        .setAttributes(Attributes.wrap(keys, values))
        .setResource(RESOURCE)
        .setScope(SCOPE)
        .build());
    return this;
  }

  public List<SpanRecord> spans() {
    return List.copyOf(spans);
  }

  public TraceProfile analyze() {
    return new TraceAnalyzer(SpanMapping.defaults()).analyze(TRACE, spans);
  }

  /** The result for the first span named {@code name}. */
  public TraceProfile.SpanProfile result(TraceProfile profile, String name) {
    for (int i = 0; i < spans.size(); i++) {
      if (spans.get(i).name().equals(name)) {
        return profile.spans().get(i);
      }
    }
    throw new IllegalArgumentException("no span " + name);
  }
}
