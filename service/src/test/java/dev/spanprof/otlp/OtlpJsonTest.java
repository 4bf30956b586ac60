package dev.spanprof.otlp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spanprof.golden.GoldenCases;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class OtlpJsonTest {

  private final OtlpJson decoder = new OtlpJson();

  @Test
  void decode_hexIdsEnumIntegersAndStringNanos_asOtlpJsonSpecifies() throws Exception {
    String json = """
        {"resourceSpans":[{"resource":{"attributes":[
            {"key":"service.name","value":{"stringValue":"cart"}}]},
          "scopeSpans":[{"scope":{"name":"s"},"spans":[{
            "traceId":"5B8EFFF798038103D269B633813FC60C",
            "spanId":"eee19b7ec3c1b174",
            "parentSpanId":"",
            "name":"checkout",
            "kind":2,
            "startTimeUnixNano":"1544712660000000000",
            "endTimeUnixNano":1544712661000000000,
            "attributes":[{"key":"n","value":{"intValue":"42"}}],
            "links":[{"traceId":"5b8efff798038103d269b633813fc60d","spanId":"eee19b7ec3c1b173"}],
            "status":{"code":2},
            "someFutureField":{"x":1}}]}]}]}
        """;

    ExportTraceServiceRequest request = decoder.decode(json.getBytes(StandardCharsets.UTF_8));

    Span span = request.getResourceSpans(0).getScopeSpans(0).getSpans(0);
    assertThat(HexFormat.of().formatHex(span.getTraceId().toByteArray()))
        .isEqualTo("5b8efff798038103d269b633813fc60c");
    assertThat(HexFormat.of().formatHex(span.getSpanId().toByteArray())).isEqualTo("eee19b7ec3c1b174");
    assertThat(span.getParentSpanId().isEmpty()).isTrue();
    assertThat(span.getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_SERVER);
    assertThat(span.getStartTimeUnixNano()).isEqualTo(1544712660000000000L);
    assertThat(span.getEndTimeUnixNano()).isEqualTo(1544712661000000000L);
    assertThat(span.getAttributes(0).getValue().getIntValue()).isEqualTo(42);
    assertThat(HexFormat.of().formatHex(span.getLinks(0).getSpanId().toByteArray()))
        .isEqualTo("eee19b7ec3c1b173");
    assertThat(span.getStatus().getCodeValue()).isEqualTo(2);
  }

  @ParameterizedTest
  @MethodSource("dev.spanprof.golden.GoldenCases#names")
  void decode_everyGoldenCase_decodesEverySpan(String name) throws Exception {
    ExportTraceServiceRequest request = decoder.decode(GoldenCases.otlpJson(name));

    long spans = request.getResourceSpansList().stream()
        .flatMap(resourceSpans -> resourceSpans.getScopeSpansList().stream())
        .mapToLong(scopeSpans -> scopeSpans.getSpansCount())
        .sum();
    String text = new String(GoldenCases.otlpJson(name), StandardCharsets.UTF_8);
    assertThat(spans).isPositive().isEqualTo(text.split("\"spanId\"", -1).length - 1);
  }

  @Test
  void decode_notJson_saysSo() {
    assertThatThrownBy(() -> decoder.decode("{\"resourceSpans\": [".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(InvalidOtlpException.class)
        .hasMessageStartingWith("the body is not valid JSON");
  }

  @Test
  void decode_emptyBody_saysAnObjectIsExpected() {
    assertThatThrownBy(() -> decoder.decode(new byte[0]))
        .hasMessageContaining("must be a JSON object");
  }

  @Test
  void decode_base64InsteadOfHexId_namesTheField() {
    String json = """
        {"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"W47/95gDgQPSabYzgT/GDA=="}]}]}]}
        """;

    assertThatThrownBy(() -> decoder.decode(json.getBytes(StandardCharsets.UTF_8)))
        .hasMessageContaining("resourceSpans[0].scopeSpans[0].spans[0].traceId must be hex");
  }

  /** What protobuf's JSON parser would take silently: a number for a string, a 64-bit enum. */
  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "\"name\":{\"a\":1}                                   | spans[0].name must be a JSON string, got {\"a\":1}",
      "\"name\":42                                          | spans[0].name must be a JSON string, got 42",
      "\"kind\":99999999999                                 | spans[0].kind must be an enum number of 32 bits, got 99999999999",
      "\"kind\":1.5                                         | spans[0].kind must be an enum number of 32 bits, got 1.5",
      "\"attributes\":[{\"key\":\"k\",\"value\":{\"stringValue\":7}}] | spans[0].attributes[0].value.stringValue must be a JSON string, got 7"})
  void decode_wrongFieldType_namesTheFieldAndTheValue(String member, String message) {
    String json = "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{" + member.trim()
        + "}]}]}]}";

    assertThatThrownBy(() -> decoder.decode(json.getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(InvalidOtlpException.class)
        .hasMessage("resourceSpans[0].scopeSpans[0]." + message.trim());
  }

  @Test
  void decode_enumByNameOrInt32_andSnakeCaseNames_accepted() throws Exception {
    String json = "{\"resource_spans\":[{\"scope_spans\":[{\"spans\":[{\"kind\":2},"
        + "{\"kind\":\"SPAN_KIND_CLIENT\",\"trace_state\":\"a=b\"}]}]}]}";

    assertThat(decoder.decode(json.getBytes(StandardCharsets.UTF_8)).getResourceSpans(0)
        .getScopeSpans(0).getSpansList()).extracting(span -> span.getKindValue())
        .containsExactly(2, 3);
  }
}
