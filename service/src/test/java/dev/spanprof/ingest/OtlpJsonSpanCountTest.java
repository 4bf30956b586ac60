package dev.spanprof.ingest;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spanprof.otlp.InvalidOtlpException;
import org.junit.jupiter.api.Test;

/**
 * Hand-written bodies: both field spellings, lists given as null, and fields named "spans" where
 * they are not a ScopeSpans' spans. {@link OtlpTraceMapperOracleTest} checks the count against
 * protobuf's on random requests encoded as OTLP/JSON.
 */
class OtlpJsonSpanCountTest {

  @Test
  void of_bothSpellingsAndOtherFieldsNamedSpans_countsOnlyTheScopesSpans() throws Exception {
    String body = """
        {"resourceSpans": [
          {"resource": {"attributes": [{"key": "spans", "value": {"intValue": "3"}}]},
           "spans": [{}, {}],
           "scopeSpans": [
             {"scope": {"name": "spans"}, "spans": [{"name": "a", "events": [{"spans": [1]}]}, {}]},
             {"spans": null},
             {"spans": []}]},
          {"scope_spans": [{"spans": [{"traceId": "not even hex"}]}], "schema_url": "x"},
          {"scopeSpans": null}],
         "resource_spans": [{"scopeSpans": [{"spans": [{}]}]}],
         "spans": [{}, {}, {}]}
        """;

    assertThat(OtlpJsonSpanCount.of(body.getBytes(UTF_8))).isEqualTo(4);
  }

  @Test
  void of_emptyRequests_countNothing() throws Exception {
    assertThat(OtlpJsonSpanCount.of("{}".getBytes(UTF_8))).isZero();
    assertThat(OtlpJsonSpanCount.of("{\"resourceSpans\": null}".getBytes(UTF_8))).isZero();
  }

  @Test
  void of_notJsonOrNotShapedAsARequest_refusedSayingWhy() {
    for (String body : new String[] {"not even json", "[]", "{\"resourceSpans\": {}}",
        "{\"resourceSpans\": [{\"scopeSpans\": [{\"spans\": {}}]}]}",
        "{\"resourceSpans\": [{\"scopeSpans\": [{\"spans\": [{}, ", "{} {}"}) {
      assertThatThrownBy(() -> OtlpJsonSpanCount.of(body.getBytes(UTF_8))).as(body)
          .isInstanceOf(InvalidOtlpException.class)
          .hasMessageStartingWith("the body is not an OTLP/JSON request: ");
    }
  }
}
