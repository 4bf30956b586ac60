package dev.spanprof.analysis;

import dev.spanprof.span.Attributes;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.SpanResource;
import dev.spanprof.span.SpanScope;

/** Span records for tests, with only what a test cares about set. */
public final class TestSpans {

  public static final SpanResource RESOURCE = resource("checkout");
  public static final SpanScope SCOPE =
      new SpanScope("test", "1.0", Attributes.empty(), "", new byte[0]);

  private TestSpans() {}

  /** The resource of service {@code name}, with no attribute but its name. */
  public static SpanResource resource(String name) {
    return new SpanResource(name,
        Attributes.wrap(new String[] {"service.name"}, new Object[] {name}), "", new byte[0]);
  }

  /** A span of trace {@code (0, traceLow)} with id {@code spanId}, 0..10 ns. */
  public static SpanRecord span(long traceLow, long spanId) {
    return SpanRecord.builder()
        .setTraceId(0, traceLow)
        .setSpanId(spanId)
        .setName("op")
        .setStartNanos(0)
        .setEndNanos(10)
        .setResource(RESOURCE)
        .setScope(SCOPE)
        .build();
  }
}
