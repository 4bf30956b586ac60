package dev.spanprof.export;

import static dev.spanprof.testing.WireBytes.concat;
import static dev.spanprof.testing.WireBytes.field;
import static dev.spanprof.testing.WireBytes.fixed64Field;
import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.span.Attributes;
import dev.spanprof.span.SpanOrigin;
import dev.spanprof.span.SpanResource;
import dev.spanprof.span.SpanScope;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class Utf8RepairTest {

  /** A lead byte without its continuation: not UTF-8. */
  private static final byte[] BROKEN = {'a', (byte) 0xC3, '('};
  private static final String REPAIRED = "a\uFFFD(";
  private static final byte[] NOT_TEXT = {(byte) 0xFF, (byte) 0xFE, 0};

  @Test
  void repair_invalidStringsAtAnyDepth_replaced_otherFieldsKeptByteForByte() throws Exception {
    byte[] span = concat(
        field(1, new byte[16]),
        fixed64Field(7, 0xF0F1F2F3F4F5F6F7L),
        field(5, BROKEN),
        // attributes: k = {n: BROKEN} (a key-value list), and b = bytes that are not text
        field(9, field(1, utf8("k")), field(2, field(6, field(1, field(1, utf8("n")),
            field(2, field(1, BROKEN)))))),
        field(9, field(1, utf8("b")), field(2, field(7, NOT_TEXT))),
        field(11, fixed64Field(1, 5), field(2, BROKEN)),
        field(15, field(2, BROKEN)));

    ExportEntry repaired = Utf8Repair.repair(entry(span, utf8("svc"), utf8("lib")));

    Span parsed = Span.parseFrom(bytes(repaired));
    assertThat(parsed.getName()).isEqualTo(REPAIRED);
    assertThat(parsed.getStartTimeUnixNano()).isEqualTo(0xF0F1F2F3F4F5F6F7L);
    assertThat(parsed.getAttributes(0).getValue().getKvlistValue().getValues(0).getValue()
        .getStringValue()).isEqualTo(REPAIRED);
    assertThat(parsed.getAttributes(1).getValue().getBytesValue().toByteArray())
        .isEqualTo(NOT_TEXT);
    assertThat(parsed.getEvents(0).getName()).isEqualTo(REPAIRED);
    assertThat(parsed.getEvents(0).getTimeUnixNano()).isEqualTo(5);
    assertThat(parsed.getStatus().getMessage()).isEqualTo(REPAIRED);
    assertThat(repaired.slab()).as("bytes of its own").isNull();
  }

  @Test
  void repair_resourceAndScope_repairedBesideAValidSpan() throws Exception {
    byte[] span = concat(field(1, new byte[16]), field(5, utf8("op")));

    ExportEntry repaired = Utf8Repair.repair(entry(span, BROKEN, BROKEN));

    assertThat(Span.parseFrom(bytes(repaired)).getName()).isEqualTo("op");
    assertThat(Resource.parseFrom(repaired.resource().encoded()).getAttributes(0).getValue()
        .getStringValue()).isEqualTo(REPAIRED);
    assertThat(repaired.resource().serviceName()).isEqualTo("svc");
    assertThat(InstrumentationScope.parseFrom(repaired.scope().encoded()).getName())
        .isEqualTo(REPAIRED);
  }

  @Test
  void repair_nothingInvalid_null() {
    byte[] span = concat(field(1, new byte[16]), field(5, utf8("op \u00e9\u4e2d")),
        field(9, field(1, utf8("b")), field(2, field(7, NOT_TEXT))));

    assertThat(Utf8Repair.repair(entry(span, utf8("svc"), utf8("lib")))).isNull();
  }

  private static ExportEntry entry(byte[] span, byte[] serviceName, byte[] scopeName) {
    byte[] resource = field(1, field(1, utf8("service.name")), field(2, field(1, serviceName)));
    byte[] scope = field(1, scopeName);
    // The span split between its original bytes and the appended ones, as enrichment leaves it.
    int split = span.length / 2;
    byte[] appended = new byte[span.length - split + 3];
    System.arraycopy(span, split, appended, 3, span.length - split);
    return new ExportEntry(
        new SpanResource("svc", Attributes.empty(), "", resource),
        new SpanScope("lib", "", Attributes.empty(), "", scope),
        span, 0, split, null, appended, 3, span.length - split, null, SpanOrigin.NONE);
  }

  private static byte[] bytes(ExportEntry entry) {
    return concat(
        Arrays.copyOfRange(entry.span(), entry.spanOffset(),
            entry.spanOffset() + entry.spanLength()),
        Arrays.copyOfRange(entry.appended(), entry.appendedOffset(),
            entry.appendedOffset() + entry.appendedLength()));
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
