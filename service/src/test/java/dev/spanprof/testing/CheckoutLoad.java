package dev.spanprof.testing;

import com.google.protobuf.ByteString;
import dev.spanprof.span.TraceId;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A load whose slow traces are slow because of one operation: {@code GET /checkout} on service
 * {@code shop} runs auth (5 ms), db.query and render (15 ms) one after another; the query takes
 * 10 ms, but 200 ms (20 times slower) in every tenth trace.
 */
public final class CheckoutLoad {

  public static final long MS = 1_000_000;
  private static final long START_NANOS = 1_700_000_000_000_000_000L;

  private CheckoutLoad() {}

  /** The trace ids of {@code traces} checkouts, the i-th slow when i % 10 == 9. */
  public static List<TraceId> traceIds(int traces) {
    List<TraceId> ids = new ArrayList<>();
    for (int i = 0; i < traces; i++) {
      ids.add(new TraceId(0xC4EC, i + 1));
    }
    return ids;
  }

  public static long queryMs(int i) {
    return i % 10 == 9 ? 200 : 10;
  }

  /** One request holding all the checkouts' spans. */
  public static ExportTraceServiceRequest request(int traces) {
    List<Span.Builder> spans = new ArrayList<>();
    List<TraceId> ids = traceIds(traces);
    for (int i = 0; i < traces; i++) {
      TraceId id = ids.get(i);
      long queryEnd = START_NANOS + (5 + queryMs(i)) * MS;
      spans.add(span(id, 1, 0, "GET /checkout", START_NANOS, queryEnd + 15 * MS));
      spans.add(span(id, 2, 1, "auth", START_NANOS, START_NANOS + 5 * MS));
      spans.add(span(id, 3, 1, "db.query", START_NANOS + 5 * MS, queryEnd)
          .addAttributes(attribute("db.system", "postgresql")));
      spans.add(span(id, 4, 1, "render", queryEnd, queryEnd + 15 * MS));
    }
    return Otlp.request("shop", spans.toArray(Span.Builder[]::new));
  }

  private static Span.Builder span(TraceId trace, long spanId, long parent, String name,
      long start, long end) {
    Span.Builder span = Otlp.span(trace, spanId).setName(name)
        .setStartTimeUnixNano(start).setEndTimeUnixNano(end)
        .addAttributes(attribute("thread.id", "t1"));
    if (parent != 0) {
      span.setParentSpanId(ByteString.copyFrom(ByteBuffer.allocate(8).putLong(parent).array()));
    }
    return span;
  }

  private static KeyValue attribute(String key, String value) {
    return KeyValue.newBuilder().setKey(key)
        .setValue(AnyValue.newBuilder().setStringValue(value)).build();
  }
}
