package dev.spanprof.ingest;

import static dev.spanprof.testing.WireBytes.concat;
import static dev.spanprof.testing.WireBytes.field;
import static dev.spanprof.testing.WireBytes.fixed32Field;
import static dev.spanprof.testing.WireBytes.varintField;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spanprof.otlp.InvalidOtlpException;
import dev.spanprof.span.SpanMapping;
import dev.spanprof.span.TraceId;
import dev.spanprof.span.store.SpanStore;
import dev.spanprof.testing.Otlp;
import org.junit.jupiter.api.Test;

/**
 * Hand-framed requests: the order and kinds of fields protobuf's encoder never writes.
 * {@link OtlpTraceMapperOracleTest} checks the count against the walk on random requests.
 */
class OtlpSpanCountTest {

  private static final byte[] SPAN = Otlp.span(new TraceId(1, 1), 1).build().toByteArray();
  /** A span frame whose content is a tag with its varint cut off. */
  private static final byte[] TRUNCATED_SPAN = {0x08};

  @Test
  void of_headersAfterSpansAndUnknownFields_countsEverySpanFrame() throws Exception {
    byte[] body = concat(
        varintField(99, 7),
        field(1, // ResourceSpans
            field(2, // ScopeSpans
                field(2, SPAN), fixed32Field(15, 0x04030201), field(2, SPAN), field(1, new byte[0])),
            field(3, "https://opentelemetry.io/schemas/1.26.0".getBytes()),
            field(1, new byte[0]), // the resource, after its scope spans
            field(2, field(2, SPAN))),
        field(1, field(2 /* a ScopeSpans without spans */, new byte[0])),
        field(1, field(2, field(2, SPAN))));

    assertThat(OtlpSpanCount.of(body, body.length)).isEqualTo(4);
    assertThat(OtlpSpanCount.of(body, 0)).as("nothing in an empty window").isZero();
  }

  @Test
  void of_spansThemselvesMalformed_countedWithoutBeingRead() throws Exception {
    byte[] body = field(1, field(2, field(2, TRUNCATED_SPAN), field(2, SPAN)));

    assertThat(OtlpSpanCount.of(body, body.length)).isEqualTo(2);
    OtlpTraceMapper mapper =
        new OtlpTraceMapper(new StringInterner(100), SpanStore.ofSize(1 << 16), SpanMapping.defaults());
    assertThatThrownBy(() -> mapper.map(body)).as("the walk reads the span")
        .isInstanceOf(InvalidOtlpException.class).hasMessageContaining("truncated varint");
  }

  @Test
  void of_framingMalformedAtAnyLevel_refusedSayingWhere() {
    byte[] scopeRunsPast = {0x0A, 0x03, 0x12, 0x05, 0x12};
    byte[] spanRunsPast = {0x0A, 0x04, 0x12, 0x02, 0x12, 0x09};
    byte[] groupInRequest = {0x0B};

    assertThatThrownBy(() -> OtlpSpanCount.of(scopeRunsPast, scopeRunsPast.length))
        .isInstanceOf(InvalidOtlpException.class)
        .hasMessage("truncated or misframed: a field of 5 bytes runs past the end of its message at byte 4");
    assertThatThrownBy(() -> OtlpSpanCount.of(spanRunsPast, spanRunsPast.length))
        .isInstanceOf(InvalidOtlpException.class)
        .hasMessage("truncated or misframed: a field of 9 bytes runs past the end of its message at byte 6");
    assertThatThrownBy(() -> OtlpSpanCount.of(groupInRequest, groupInRequest.length))
        .isInstanceOf(InvalidOtlpException.class).hasMessage("unsupported wire type 3 (field 1) at byte 1");
  }
}
