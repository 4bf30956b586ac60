package dev.spanprof.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.span.Attributes;
import dev.spanprof.span.SpanKind;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.SpanResource;
import dev.spanprof.span.SpanScope;
import dev.spanprof.span.SpanStatus;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class OriginalSpanLogTest {

  private final SpanResource shop = resource("shop");
  private final SpanResource bank = resource("bank");

  /** Entries that wrap round the ring's end read back whole, until they are written over. */
  @Test
  void entries_readBackWholeAcrossTheEnd_untilWrittenOver() {
    List<SpanRecord> trace = List.of(span(1, "pay", shop), span(2, "debit", bank),
        span(3, "audit", shop));
    OriginalSpanLog probe = new OriginalSpanLog(1 << 20);
    probe.append(trace);
    long entryBytes = probe.append(trace);
    // Room for two and a half entries and a little: the last entry straddles the end.
    OriginalSpanLog log = new OriginalSpanLog(entryBytes * 5 / 2 + 7);
    List<Long> positions = new ArrayList<>();
    for (int k = 0; k < 6; k++) {
      positions.add(log.append(trace));
    }

    for (int k = 0; k < 4; k++) {
      assertThat(log.read(positions.get(k))).as("entry %d", k).isNull();
    }
    for (int k = 4; k < 6; k++) {
      OriginalSpans read = log.read(positions.get(k));
      assertThat(read.spanCount()).isEqualTo(3);
      assertThat(read.resourceCount()).isEqualTo(2);
      assertThat(read.span(1).getName()).isEqualTo("debit");
      assertThat(read.span(1).getAttributes(0).getValue().getStringValue()).isEqualTo("v2");
      assertThat(read.resource(read.resourceOf(1)).getAttributes(0).getValue().getStringValue())
          .isEqualTo("bank");
      assertThat(read.resourceOf(2)).isEqualTo(read.resourceOf(0));
    }
  }

  @Test
  void anEntryLargerThanTheRing_isNotKept() {
    OriginalSpanLog log = new OriginalSpanLog(16);

    long position = log.append(List.of(span(1, "pay", shop)));

    assertThat(position).isEqualTo(-1);
    assertThat(log.read(position)).isNull();
  }

  private static SpanRecord span(long id, String name, SpanResource resource) {
    byte[] encoded = Span.newBuilder().setName(name).addAttributes(KeyValue.newBuilder()
        .setKey("k").setValue(AnyValue.newBuilder().setStringValue("v" + id))).build()
        .toByteArray();
    return SpanRecord.builder().setTraceId(1, 1).setSpanId(id).setName(name)
        .setKind(SpanKind.INTERNAL).setStatus(SpanStatus.UNSET).setStatusMessage("")
        .setAttributes(Attributes.empty()).setResource(resource)
        .setScope(new SpanScope("", "", Attributes.empty(), "", new byte[0]))
        .setEncoded(encoded).build();
  }

  private static SpanResource resource(String service) {
    byte[] encoded = Resource.newBuilder().addAttributes(KeyValue.newBuilder()
        .setKey("service.name").setValue(AnyValue.newBuilder().setStringValue(service))).build()
        .toByteArray();
    return new SpanResource(service, Attributes.empty(), "", encoded);
  }
}
