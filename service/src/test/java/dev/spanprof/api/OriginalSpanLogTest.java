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
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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

  /**
   * A trace has the attributes asked for when some span or its resource has each: strings and
   * numbers alike, by the text of their values; a value nowhere in the trace rules it out.
   */
  @Test
  void hasAttributes_byTheTextOfStringsAndNumbers_overSpansAndResources() {
    OriginalSpanLog log = new OriginalSpanLog(1 << 20);
    OriginalSpans trace = log.read(log.append(List.of(span(1, "pay", shop),
        span(2, "debit", bank))));

    assertThat(trace.hasAttributes(Map.of("k", "v2"))).isTrue();
    assertThat(trace.hasAttributes(Map.of("code", "202"))).isTrue();
    assertThat(trace.hasAttributes(Map.of("service.name", "bank", "k", "v1", "code", "202")))
        .as("each on a span or resource of its own").isTrue();
    assertThat(trace.hasAttributes(Map.of("k", "v3"))).isFalse();
    assertThat(trace.hasAttributes(Map.of("code", "999"))).isFalse();
    assertThat(trace.hasAttributes(Map.of("k", "202"))).as("another key's value").isFalse();
    assertThat(trace.hasAttributes(Map.of("missing", "v1"))).isFalse();
  }

  /**
   * A string that is not UTF-8, which ingest keeps as sent and protobuf-java refuses, reads
   * repaired; the span's other attributes, and the search, are not lost with it.
   */
  @Test
  void aSpanWithAStringThatIsNotUtf8_readsRepaired() {
    SpanRecord valid = span(7, "pay", shop);
    byte[] encoded = valid.copyOfEncoded();
    byte[] value = "v7".getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i + 1 < encoded.length; i++) {
      if (encoded[i] == value[0] && encoded[i + 1] == value[1]) {
        encoded[i + 1] = (byte) 0xFF; // "v" and a byte no UTF-8 sequence has
      }
    }
    SpanRecord broken = SpanRecord.builder().setTraceId(1, 1).setSpanId(7).setName("pay")
        .setKind(SpanKind.INTERNAL).setStatus(SpanStatus.UNSET).setStatusMessage("")
        .setAttributes(Attributes.empty()).setResource(shop)
        .setScope(new SpanScope("", "", Attributes.empty(), "", new byte[0]))
        .setEncoded(encoded).build();
    OriginalSpanLog log = new OriginalSpanLog(1 << 20);

    OriginalSpans read = log.read(log.append(List.of(broken)));

    assertThat(read.span(0).getAttributes(0).getValue().getStringValue()).isEqualTo("v\uFFFD");
    assertThat(read.span(0).getAttributes(1).getValue().getIntValue()).isEqualTo(207);
    assertThat(read.hasAttributes(Map.of("code", "207"))).isTrue();
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
            .setKey("k").setValue(AnyValue.newBuilder().setStringValue("v" + id)))
        .addAttributes(KeyValue.newBuilder()
            .setKey("code").setValue(AnyValue.newBuilder().setIntValue(200 + id)))
        .build().toByteArray();
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
