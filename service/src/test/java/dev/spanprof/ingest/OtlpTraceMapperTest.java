package dev.spanprof.ingest;

import static dev.spanprof.testing.WireBytes.concat;
import static dev.spanprof.testing.WireBytes.field;
import static dev.spanprof.testing.WireBytes.varintField;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import dev.spanprof.span.Attributes;
import dev.spanprof.span.SpanKind;
import dev.spanprof.span.SpanMapping;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.SpanResource;
import dev.spanprof.span.SpanStatus;
import dev.spanprof.span.store.SpanStore;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class OtlpTraceMapperTest {

  private static final byte[] TRACE_ID = HexFormat.of().parseHex("0102030405060708090a0b0c0d0e0f10");
  private static final byte[] SPAN_ID = HexFormat.of().parseHex("1112131415161718");
  private static final byte[] PARENT_ID = HexFormat.of().parseHex("2122232425262728");

  private final OtlpTraceMapper mapper = new OtlpTraceMapper(new StringInterner(1000), SpanStore.ofSize(1 << 20),
      SpanMapping.defaults());

  @Test
  void map_validSpan_keepsIdsTimesNamesAttributesAndOriginalBytes() {
    Span span = validSpan()
        .setKind(Span.SpanKind.SPAN_KIND_CLIENT)
        .setStatus(Status.newBuilder().setCode(Status.StatusCode.STATUS_CODE_ERROR))
        .addAttributes(keyValue("thread.id", AnyValue.newBuilder().setIntValue(7)))
        .addAttributes(keyValue("db.system", AnyValue.newBuilder().setStringValue("postgresql")))
        .addAttributes(keyValue("tags", AnyValue.newBuilder().setArrayValue(ArrayValue.newBuilder()
            .addValues(AnyValue.newBuilder().setBoolValue(true)))))
        .build();

    MappedRequest mapped = mapper.map(request(span));

    assertThat(mapped.rejectedSpans()).isZero();
    assertThat(mapped.problems()).isEmpty();
    SpanRecord record = mapped.spans().get(0);
    assertThat(record.traceIdHigh()).isEqualTo(0x0102030405060708L);
    assertThat(record.traceIdLow()).isEqualTo(0x090a0b0c0d0e0f10L);
    assertThat(record.traceId().toHex()).isEqualTo("0102030405060708090a0b0c0d0e0f10");
    assertThat(record.spanId()).isEqualTo(0x1112131415161718L);
    assertThat(record.parentSpanId()).isEqualTo(0x2122232425262728L);
    assertThat(record.name()).isEqualTo("GET /cart");
    assertThat(record.serviceName()).isEqualTo("checkout");
    assertThat(record.kind()).isEqualTo(SpanKind.CLIENT);
    assertThat(record.status()).isEqualTo(SpanStatus.ERROR);
    assertThat(record.startNanos()).isEqualTo(1_700_000_000_000_000_000L);
    assertThat(record.durationNanos()).isEqualTo(250);
    assertThat(record.attribute("thread.id")).isEqualTo(7L);
    assertThat(record.attribute("db.system")).isEqualTo("postgresql");
    assertThat(record.attribute("tags")).isEqualTo(List.of(true));
    // Span attribute first, then the resource's.
    assertThat(record.attribute("service.instance.id")).isEqualTo("c1");
    assertThat(record.scope().name()).isEqualTo("io.test");
    assertThat(record.copyOfEncoded()).isEqualTo(span.toByteArray());
    assertThat(record.resource().encoded())
        .isEqualTo(request(span).getResourceSpans(0).getResource().toByteArray());
  }

  /**
   * A span's values are decoded when looked up: an empty value counts as absent, so a later
   * occurrence of its key is found; otherwise the first occurrence wins, as when decoded whole.
   */
  @Test
  void attributes_lookedUpLazily_emptyValueAbsentFirstPresentValueWins() {
    Span span = validSpan()
        .addAttributes(keyValue("db.system", AnyValue.newBuilder()))
        .addAttributes(keyValue("db.system", AnyValue.newBuilder().setStringValue("postgresql")))
        .addAttributes(keyValue("thread.id", AnyValue.newBuilder().setIntValue(7)))
        .addAttributes(keyValue("thread.id", AnyValue.newBuilder().setIntValue(8)))
        .addAttributes(KeyValue.newBuilder().setKey("no.value"))
        .build();

    Attributes attributes = mapper.map(request(span)).spans().get(0).attributes();

    assertThat(attributes.get("db.system")).isEqualTo("postgresql");
    assertThat(attributes.get("thread.id")).isEqualTo(7L);
    assertThat(attributes.get("no.value")).isNull();
    assertThat(attributes.get("absent")).isNull();
    assertThat(attributes)
        .isEqualTo(Attributes.wrap(new String[] {"db.system", "thread.id", "thread.id"},
            new Object[] {"postgresql", 7L, 8L}))
        .hasSameHashCodeAs(Attributes.wrap(new String[] {"db.system", "thread.id", "thread.id"},
            new Object[] {"postgresql", 7L, 8L}))
        .hasToString("{db.system=postgresql, thread.id=7, thread.id=8}");
  }

  /**
   * Spans with the same keys share the keys' array and bits; each still finds its own values,
   * as do spans with the same keys in another order, with fewer of them, or after more key
   * lists than the decoder remembers have come between.
   */
  @Test
  void attributes_spansWithTheSameKeys_eachKeepTheirOwnValues() {
    List<Span> spans = new ArrayList<>();
    List<Attributes> expected = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      String[] keys = switch (i % 4) {
        case 0 -> new String[] {"thread.id", "db.system"};
        case 1 -> new String[] {"db.system", "thread.id"};
        case 2 -> new String[] {"thread.id"};
        default -> new String[] {"key." + i, "thread.id"};
      };
      Object[] values = new Object[keys.length];
      Span.Builder span = validSpan();
      for (int k = 0; k < keys.length; k++) {
        values[k] = keys[k].equals("thread.id") ? (Object) (long) i : "value " + i;
        span.addAttributes(keyValue(keys[k], values[k] instanceof Long number
            ? AnyValue.newBuilder().setIntValue(number)
            : AnyValue.newBuilder().setStringValue((String) values[k])));
      }
      spans.add(span.build());
      expected.add(Attributes.wrap(keys, values));
    }

    List<SpanRecord> mapped = mapper.map(request(spans.toArray(Span[]::new))).spans();

    assertThat(mapped).hasSize(300);
    for (int i = 0; i < 300; i++) {
      Attributes attributes = mapped.get(i).attributes();
      assertThat(attributes).as("span %d", i).isEqualTo(expected.get(i));
      assertThat(attributes.get("thread.id")).as("span %d", i).isEqualTo((long) i);
    }
  }

  /**
   * A key is first compared with the key the span before had at the same position: spans whose
   * keys match there in part, an entry without a value or without a key between them, and keys
   * too long to cache must all come out with their own keys.
   */
  @Test
  void attributes_keysComparedWithTheSpanBefores_eachSpanGetsItsOwn() {
    String longKey = "k".repeat(200);
    KeyValue noValue = KeyValue.newBuilder().setKey("b").build();
    KeyValue noKey = KeyValue.newBuilder().setValue(AnyValue.newBuilder().setStringValue("v")).build();
    List<List<KeyValue>> entries = List.of(
        List.of(text("a"), text("b"), text("c")),
        List.of(text("a"), text("b"), text("c")),
        List.of(text("a"), text("b")),
        List.of(text("a"), text("x"), text("c")),
        List.of(text("a"), noValue),
        List.of(text("a"), text("b")),
        List.of(text("a"), noValue, text("c"), text("b")),
        List.of(text("a"), text("b"), text("c")),
        List.of(noKey, text("a")),
        List.of(text("a")),
        List.of(text(longKey), text("a")),
        List.of(text(longKey), text("a")),
        List.of(text("a"), text("b"), text("c")));
    List<Attributes> expected = List.of(
        attributes("a", "b", "c"), attributes("a", "b", "c"), attributes("a", "b"),
        attributes("a", "x", "c"), attributes("a"), attributes("a", "b"), attributes("a", "c", "b"), attributes("a", "b", "c"), attributes("", "a"),
        attributes("a"), attributes(longKey, "a"), attributes(longKey, "a"),
        attributes("a", "b", "c"));

    List<SpanRecord> mapped = mapper.map(request(entries.stream()
        .map(list -> validSpan().addAllAttributes(list).build()).toArray(Span[]::new))).spans();

    for (int i = 0; i < entries.size(); i++) {
      assertThat(mapped.get(i).attributes()).as("span %d", i).isEqualTo(expected.get(i));
    }
  }

  @Test
  void attributes_keyOrdersInterleaved_eachSpanGetsItsOwn() {
    List<List<String>> keyLists = List.of(
        List.of("a", "b", "c"), List.of("c", "b", "a"), List.of("a", "b", "c"),
        List.of("thread.id", "a"), List.of("c", "b", "a"), List.of("a", "b"),
        List.of("thread.id", "a"), List.of("a", "b", "c"), List.of("c", "b"),
        List.of("c", "b", "a"), List.of(), List.of("a", "b", "c"), List.of("c", "b", "a", "d"));

    assertEachSpanDecodesToItsOwnKeys(keyLists);
  }

  @Test
  void attributes_moreFirstKeysThanTheLatestListsKeep_eachSpanGetsItsOwn() {
    // 200 first keys of one length, in turn: more than the latest lists' slots, so some share
    // one, whatever the slots are.
    List<List<String>> keyLists = new ArrayList<>();
    for (int round = 0; round < 2; round++) {
      for (int k = 100; k < 300; k++) {
        keyLists.add(List.of("k" + k, "a"));
      }
    }

    assertEachSpanDecodesToItsOwnKeys(keyLists);
  }

  /** Maps one span per key list, each attribute's value its key, and checks what each decodes to. */
  private void assertEachSpanDecodesToItsOwnKeys(List<List<String>> keyLists) {
    List<SpanRecord> mapped = mapper.map(request(keyLists.stream()
        .map(keys -> validSpan().addAllAttributes(keys.stream().map(OtlpTraceMapperTest::text).toList()).build())
        .toArray(Span[]::new))).spans();

    for (int i = 0; i < keyLists.size(); i++) {
      assertThat(mapped.get(i).attributes()).as("span %d", i)
          .isEqualTo(attributes(keyLists.get(i).toArray(String[]::new)));
    }
  }

  /** An attribute whose value is its key, as a string. */
  private static KeyValue text(String key) {
    return keyValue(key, AnyValue.newBuilder().setStringValue(key));
  }

  /** What {@link #text} entries with these keys decode to. */
  private static Attributes attributes(String... keys) {
    Object[] values = new Object[keys.length];
    for (int i = 0; i < keys.length; i++) {
      values[i] = keys[i].isEmpty() ? "v" : keys[i];
    }
    return Attributes.wrap(keys, values);
  }

  @Test
  void resourceSpansAndScopeSpans_shareTheLayoutTheMapperReadsBothWith() {
    assertThat(new int[] {ScopeSpans.SCOPE_FIELD_NUMBER, ScopeSpans.SPANS_FIELD_NUMBER,
        ScopeSpans.SCHEMA_URL_FIELD_NUMBER})
        .containsExactly(ResourceSpans.RESOURCE_FIELD_NUMBER, ResourceSpans.SCOPE_SPANS_FIELD_NUMBER,
            ResourceSpans.SCHEMA_URL_FIELD_NUMBER);
  }

  @Test
  void map_namesAndKeys_areInternedAcrossRequests() {
    SpanRecord first = mapper.map(request(validSpan().build())).spans().get(0);
    SpanRecord second = mapper.map(request(validSpan().build())).spans().get(0);

    assertThat(second.name()).isSameAs(first.name());
    assertThat(second.serviceName()).isSameAs(first.serviceName());
  }

  @Test
  void map_threeByteTraceId_rejectsOnlyThatSpanWithMessage() {
    Span bad = validSpan().setTraceId(ByteString.copyFrom(new byte[] {1, 2, 3})).build();

    MappedRequest mapped = mapper.map(request(validSpan().build(), bad));

    assertThat(mapped.spans()).hasSize(1);
    assertThat(mapped.rejectedSpans()).isEqualTo(1);
    assertThat(mapped.problems())
        .isEqualTo("resourceSpans[0].scopeSpans[0].spans[1] rejected: traceId has 3 bytes, expected 16");
  }

  @Test
  void map_invalidIds_eachRejectedWithReason() {
    MappedRequest mapped = mapper.map(request(
        validSpan().setTraceId(ByteString.copyFrom(new byte[16])).build(),
        validSpan().setSpanId(ByteString.EMPTY).build(),
        validSpan().setSpanId(ByteString.copyFrom(new byte[8])).build(),
        validSpan().setParentSpanId(ByteString.copyFrom(new byte[4])).build()));

    assertThat(mapped.spans()).isEmpty();
    assertThat(mapped.rejectedSpans()).isEqualTo(4);
    assertThat(mapped.problems())
        .contains("traceId is all zeros", "spanId has 0 bytes, expected 8", "spanId is all zeros",
            "parentSpanId has 4 bytes, expected 0 or 8");
  }

  @Test
  void map_endBeforeStart_keptAndFlaggedAsZeroLength() {
    Span backwards = validSpan().setEndTimeUnixNano(1_600_000_000_000_000_000L).build();

    MappedRequest mapped = mapper.map(request(backwards));

    assertThat(mapped.rejectedSpans()).isZero();
    assertThat(mapped.endBeforeStartSpans()).isEqualTo(1);
    assertThat(mapped.problems()).contains("endTimeUnixNano is before startTimeUnixNano");
    SpanRecord record = mapped.spans().get(0);
    assertThat(record.endsBeforeStart()).isTrue();
    assertThat(record.endNanos()).isEqualTo(1_600_000_000_000_000_000L);
    assertThat(record.durationNanos()).isZero();
  }

  @Test
  void map_noServiceName_usesUnknownService() {
    ExportTraceServiceRequest request = ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(ResourceSpans.newBuilder()
            .addScopeSpans(ScopeSpans.newBuilder().addSpans(validSpan())))
        .build();

    SpanRecord record = mapper.map(request).spans().get(0);

    assertThat(record.serviceName()).isEqualTo(SpanResource.UNKNOWN_SERVICE);
    assertThat(record.resource().attributes()).isEqualTo(Attributes.empty());
  }

  @Test
  void map_manyProblems_spellsOutFiveAndCountsTheRest() {
    Span bad = validSpan().setSpanId(ByteString.EMPTY).build();

    MappedRequest mapped = mapper.map(request(bad, bad, bad, bad, bad, bad, bad));

    assertThat(mapped.rejectedSpans()).isEqualTo(7);
    assertThat(mapped.problems()).endsWith("(and 2 more)");
  }

  private static Span.Builder validSpan() {
    return Span.newBuilder()
        .setTraceId(ByteString.copyFrom(TRACE_ID))
        .setSpanId(ByteString.copyFrom(SPAN_ID))
        .setParentSpanId(ByteString.copyFrom(PARENT_ID))
        .setName("GET /cart")
        .setStartTimeUnixNano(1_700_000_000_000_000_000L)
        .setEndTimeUnixNano(1_700_000_000_000_000_250L);
  }

  private static ExportTraceServiceRequest request(Span... spans) {
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(ResourceSpans.newBuilder()
            .setResource(Resource.newBuilder()
                .addAttributes(keyValue("service.name", AnyValue.newBuilder().setStringValue("checkout")))
                .addAttributes(keyValue("service.instance.id", AnyValue.newBuilder().setStringValue("c1"))))
            .addScopeSpans(ScopeSpans.newBuilder()
                .setScope(InstrumentationScope.newBuilder().setName("io.test"))
                .addAllSpans(List.of(spans))))
        .build();
  }

  private static KeyValue keyValue(String key, AnyValue.Builder value) {
    return KeyValue.newBuilder().setKey(key).setValue(value).build();
  }

  @Test
  void map_protobufBody_keepsEachSpanAsItsExactBytes()
      throws Exception {
    byte[] first = nonCanonicalSpan("first");
    byte[] second = nonCanonicalSpan("second");
    // Re-encoding would reorder the fields and so change the bytes: the test can tell.
    assertThat(Span.parseFrom(first).toByteArray()).isNotEqualTo(first);
    byte[] rejected = validSpan().setTraceId(ByteString.copyFrom(new byte[3])).build().toByteArray();
    byte[] body = field(1, concat(
        field(1, Resource.getDefaultInstance().toByteArray()),
        varintField(50, 1), // unknown to this version of OTLP: skipped
        field(2, concat(field(2, rejected), field(2, first))),
        field(2, field(2, second))));

    MappedRequest mapped = mapper.map(body);

    assertThat(mapped.rejectedSpans()).isEqualTo(1);
    assertThat(mapped.spans()).extracting(SpanRecord::copyOfEncoded).containsExactly(first, second);
    assertThat(mapped.spans()).extracting(SpanRecord::name).containsExactly("first", "second");
  }

  /** A valid span with its name before its ids and an unknown field: not protobuf's own order. */
  private static byte[] nonCanonicalSpan(String name) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    out.writeString(Span.NAME_FIELD_NUMBER, name);
    out.writeUInt64(99, 7);
    out.writeByteArray(Span.TRACE_ID_FIELD_NUMBER, TRACE_ID);
    out.writeByteArray(Span.SPAN_ID_FIELD_NUMBER, SPAN_ID);
    out.writeFixed64(Span.START_TIME_UNIX_NANO_FIELD_NUMBER, 1_000);
    out.writeFixed64(Span.END_TIME_UNIX_NANO_FIELD_NUMBER, 2_000);
    out.flush();
    return bytes.toByteArray();
  }
}
