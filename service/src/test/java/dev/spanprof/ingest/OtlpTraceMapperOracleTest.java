package dev.spanprof.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.spanprof.otlp.InvalidOtlpException;
import dev.spanprof.otlp.OtlpJson;
import dev.spanprof.span.Attributes;
import dev.spanprof.span.SpanKind;
import dev.spanprof.span.SpanMapping;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.SpanStatus;
import dev.spanprof.span.store.SpanStore;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.common.v1.KeyValueList;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The wire walk against protobuf's own parser as the oracle, on random requests; and on random
 * corruptions of them, that the walk either maps or refuses the body, and that whatever it maps
 * decodes later (attributes are only checked at ingest). The span count a full buffer refuses
 * requests by is checked against both.
 */
class OtlpTraceMapperOracleTest {

  /** Small enough that rounds write over the slabs of rounds released before them. */
  private final SpanStore store = SpanStore.ofSize(256 * 1024);
  private final OtlpTraceMapper mapper = new OtlpTraceMapper(new StringInterner(100_000), store, SpanMapping.defaults());

  @Test
  void randomRequests_mapAsProtobufsParseSaysTheyShould() throws Exception {
    Random random = new Random(20261121);
    MappedRequest previous = null;
    List<byte[]> previousBytes = List.of();
    long placedBytes = 0;
    for (int round = 0; round < 300; round++) {
      ExportTraceServiceRequest request = randomRequest(random);
      byte[] body = request.toByteArray();

      MappedRequest mapped = mapper.map(body);
      mapped.writer().close();
      if (previous != null) {
        // The previous round's spans are still held: mapping this one did not write over them.
        for (int i = 0; i < previousBytes.size(); i++) {
          assertThat(previous.spans().get(i).copyOfEncoded()).isEqualTo(previousBytes.get(i));
        }
        SpanRecord.releaseBytes(previous.spans());
      }

      List<SpanRecord> expected = new ArrayList<>();
      int rejected = 0;
      ExportTraceServiceRequest parsed = ExportTraceServiceRequest.parseFrom(body);
      List<Span> valid = new ArrayList<>();
      List<ResourceSpans> resourceOf = new ArrayList<>();
      for (ResourceSpans resourceSpans : parsed.getResourceSpansList()) {
        for (ScopeSpans scopeSpans : resourceSpans.getScopeSpansList()) {
          for (Span span : scopeSpans.getSpansList()) {
            if (isValid(span)) {
              valid.add(span);
              resourceOf.add(resourceSpans);
            } else {
              rejected++;
            }
          }
        }
      }
      assertThat(mapped.rejectedSpans()).as("round %d", round).isEqualTo(rejected);
      assertThat(OtlpSpanCount.of(body, body.length)).as("round %d, counted", round)
          .isEqualTo(valid.size() + rejected);
      assertThat(OtlpJsonSpanCount.of(OtlpJson.encode(request)))
          .as("round %d, counted in OTLP/JSON", round).isEqualTo(valid.size() + rejected);
      assertThat(mapped.spans()).as("round %d", round).hasSize(valid.size());
      for (int i = 0; i < valid.size(); i++) {
        Span span = valid.get(i);
        SpanRecord record = mapped.spans().get(i);
        assertThat(record.spanId()).isEqualTo(ByteBuffer.wrap(span.getSpanId().toByteArray()).getLong());
        assertThat(record.traceIdLow())
            .isEqualTo(ByteBuffer.wrap(span.getTraceId().toByteArray()).getLong(8));
        assertThat(record.parentSpanId()).isEqualTo(span.getParentSpanId().isEmpty()
            ? 0 : ByteBuffer.wrap(span.getParentSpanId().toByteArray()).getLong());
        assertThat(record.name()).isEqualTo(span.getName());
        assertThat(record.kind()).isEqualTo(SpanKind.fromOtlp(span.getKindValue()));
        assertThat(record.status()).isEqualTo(SpanStatus.fromOtlp(span.getStatus().getCodeValue()));
        assertThat(record.startNanos()).isEqualTo(span.getStartTimeUnixNano());
        assertThat(record.endNanos()).isEqualTo(span.getEndTimeUnixNano());
        assertThat(record.copyOfEncoded()).isEqualTo(span.toByteArray());
        assertThat(record.attributes()).isEqualTo(oracle(span.getAttributesList()));
        Resource resource = resourceOf.get(i).getResource();
        assertThat(record.resource().attributes()).isEqualTo(oracle(resource.getAttributesList()));
        assertThat(record.resource().encoded()).isEqualTo(resource.toByteArray());
      }
      previous = mapped;
      previousBytes = valid.stream().map(Span::toByteArray).toList();
      placedBytes += previousBytes.stream().mapToInt(b -> b.length).filter(n -> n <= 1024).sum();
    }
    // Slabs were written over: fewer bytes were allocated than spans were placed.
    assertThat(store.allocatedBytes()).isLessThan(placedBytes);
  }

  @Test
  void corruptedRequests_areMappedOrRefused_andWhatIsMappedDecodes() {
    Random random = new Random(7);
    int refused = 0;
    int mapped = 0;
    for (int round = 0; round < 3000; round++) {
      byte[] body = randomRequest(random).toByteArray();
      if (body.length == 0) {
        continue;
      }
      byte[] corrupted = corrupt(body, random);
      int[] walkedSpans = new int[1];
      Throwable thrown = catchThrowable(() -> {
        MappedRequest request = mapper.map(corrupted);
        for (SpanRecord span : request.spans()) {
          span.attributes(); // decoded now, from bytes only checked at ingest
        }
        walkedSpans[0] = request.spans().size() + request.rejectedSpans();
        SpanRecord.releaseBytes(request.spans());
        request.writer().close();
      });
      // The count reads a part of what the walk reads: it refuses no body the walk maps, and
      // counts the spans the walk found, valid or not.
      Integer counted = null;
      try {
        counted = OtlpSpanCount.of(corrupted, corrupted.length);
      } catch (InvalidOtlpException e) {
        assertThat(thrown).as("round %d: the walk refuses what the count refuses", round).isNotNull();
      }
      if (thrown == null) {
        assertThat(counted).as("round %d", round).isEqualTo(walkedSpans[0]);
        mapped++;
      } else {
        assertThat(thrown).as("round %d", round).isInstanceOf(InvalidOtlpException.class);
        refused++;
      }
    }
    // Both outcomes occur, so the property was exercised both ways.
    assertThat(refused).isPositive();
    assertThat(mapped).isPositive();
    // A refused body gives back what its walk placed before it failed.
    assertThat(store.slabsHoldingSpans()).isZero();
  }

  @Test
  void malformedBodies_refusedSayingWhere() {
    byte[] valid = randomRequest(new Random(3)).toByteArray();
    assertThatThrownBy(() -> mapper.map(Arrays.copyOf(valid, valid.length - 1)))
        .isInstanceOf(InvalidOtlpException.class).hasMessageContaining("at byte");
    assertThatThrownBy(() -> mapper.map(new byte[] {0x0A, 0x05, 0x01}))
        .isInstanceOf(InvalidOtlpException.class).hasMessage("truncated or misframed: a field of 5 bytes runs past the end of its message at byte 2");
    assertThatThrownBy(() -> mapper.map(new byte[] {0x0B}))
        .isInstanceOf(InvalidOtlpException.class).hasMessage("unsupported wire type 3 (field 1) at byte 1");
    assertThatThrownBy(() -> mapper.map(new byte[] {0x00}))
        .isInstanceOf(InvalidOtlpException.class).hasMessage("invalid tag 0 at byte 1");
  }

  @Test
  void attributeValuesNestedTooDeep_refuseTheRequest() throws InvalidProtocolBufferException {
    AnyValue value = AnyValue.newBuilder().setIntValue(1).build();
    for (int i = 0; i <= OtlpAttributes.MAX_DEPTH + 1; i++) {
      value = AnyValue.newBuilder().setArrayValue(ArrayValue.newBuilder().addValues(value)).build();
    }
    Span span = validSpan(new Random(1)).addAttributes(KeyValue.newBuilder().setKey("deep").setValue(value)).build();
    byte[] body = request(span).toByteArray();
    // protobuf's parser takes it (its limit is 100 levels); spanprof refuses it at ingest.
    assertThat(ExportTraceServiceRequest.parseFrom(body).getResourceSpansCount()).isEqualTo(1);
    assertThatThrownBy(() -> mapper.map(body))
        .isInstanceOf(InvalidOtlpException.class).hasMessageContaining("nested deeper than");
  }

  private static byte[] corrupt(byte[] body, Random random) {
    byte[] copy = body.clone();
    switch (random.nextInt(3)) {
      case 0 -> copy[random.nextInt(copy.length)] ^= (byte) (1 << random.nextInt(8));
      case 1 -> copy[random.nextInt(copy.length)] = (byte) random.nextInt(256);
      default -> {
        return Arrays.copyOf(copy, random.nextInt(copy.length));
      }
    }
    return copy;
  }

  private static boolean isValid(Span span) {
    ByteString traceId = span.getTraceId();
    ByteString spanId = span.getSpanId();
    int parent = span.getParentSpanId().size();
    return traceId.size() == 16 && !allZero(traceId) && spanId.size() == 8 && !allZero(spanId)
        && (parent == 0 || parent == 8);
  }

  private static boolean allZero(ByteString bytes) {
    for (int i = 0; i < bytes.size(); i++) {
      if (bytes.byteAt(i) != 0) {
        return false;
      }
    }
    return true;
  }

  /** The attributes the mapper should produce, from protobuf's parsed messages. */
  private static Attributes oracle(List<KeyValue> keyValues) {
    List<String> keys = new ArrayList<>();
    List<Object> values = new ArrayList<>();
    for (KeyValue keyValue : keyValues) {
      Object value = oracle(keyValue.getValue());
      if (value != null) {
        keys.add(keyValue.getKey());
        values.add(value);
      }
    }
    return Attributes.wrap(keys.toArray(new String[0]), values.toArray());
  }

  private static Object oracle(AnyValue value) {
    return switch (value.getValueCase()) {
      case STRING_VALUE -> value.getStringValue();
      case BOOL_VALUE -> value.getBoolValue();
      case INT_VALUE -> value.getIntValue();
      case DOUBLE_VALUE -> value.getDoubleValue();
      case BYTES_VALUE -> value.getBytesValue().toByteArray();
      case ARRAY_VALUE -> {
        List<Object> elements = new ArrayList<>();
        for (AnyValue element : value.getArrayValue().getValuesList()) {
          elements.add(oracle(element));
        }
        yield Collections.unmodifiableList(elements);
      }
      case KVLIST_VALUE -> oracle(value.getKvlistValue().getValuesList());
      default -> null;
    };
  }

  /**
   * The gRPC endpoint reads each body into an array it reuses: the walk must stay within the
   * body's length, and keep nothing that refers to the array once it returns.
   */
  @Test
  void bodyAtTheStartOfALargerArray_mapsAsAlone_andTheRecordsOutliveTheArray() throws Exception {
    Random random = new Random(20261122);
    for (int round = 0; round < 100; round++) {
      byte[] body = randomRequest(random).toByteArray();
      byte[] reused = new byte[body.length + 1 + random.nextInt(4096)];
      random.nextBytes(reused);
      System.arraycopy(body, 0, reused, 0, body.length);

      MappedRequest alone = mapper.map(body);
      MappedRequest inReused = mapper.map(reused, body.length);
      random.nextBytes(reused);

      assertThat(inReused.rejectedSpans()).as("round %d", round).isEqualTo(alone.rejectedSpans());
      assertThat(inReused.spans().stream().map(OtlpTraceMapperOracleTest::everything))
          .as("round %d", round)
          .containsExactlyElementsOf(alone.spans().stream()
              .map(OtlpTraceMapperOracleTest::everything).toList());
    }
  }

  /** Every field of a record, its attributes and its resource's and scope's decoded. */
  private static List<Object> everything(SpanRecord span) {
    return List.of(HexFormat.of().formatHex(span.copyOfEncoded()), span.traceId(), span.spanId(),
        span.parentSpanId(), span.name(), span.kind(), span.status(), span.startNanos(),
        span.endNanos(), span.attributes(), HexFormat.of().formatHex(span.resource().encoded()),
        span.resource().attributes(), span.resource().schemaUrl(),
        HexFormat.of().formatHex(span.scope().encoded()), span.scope().name(),
        span.scope().version(), span.scope().attributes(), span.scope().schemaUrl());
  }

  private static ExportTraceServiceRequest randomRequest(Random random) {
    ExportTraceServiceRequest.Builder request = ExportTraceServiceRequest.newBuilder();
    for (int r = random.nextInt(3); r >= 0; r--) {
      ResourceSpans.Builder resourceSpans = ResourceSpans.newBuilder()
          .setResource(Resource.newBuilder().addAllAttributes(randomAttributes(random, 0))
              .addAttributes(KeyValue.newBuilder().setKey("service.name")
                  .setValue(AnyValue.newBuilder().setStringValue("svc" + random.nextInt(3)))))
          .setSchemaUrl(random.nextBoolean() ? "" : "https://opentelemetry.io/schemas/1.26.0");
      for (int s = random.nextInt(3); s >= 0; s--) {
        ScopeSpans.Builder scopeSpans = ScopeSpans.newBuilder()
            .setScope(InstrumentationScope.newBuilder().setName("scope" + s).setVersion("1." + s));
        for (int i = random.nextInt(6); i > 0; i--) {
          Span.Builder span = validSpan(random).addAllAttributes(randomAttributes(random, 0));
          switch (random.nextInt(8)) {
            case 0 -> span.setTraceId(randomBytes(random, random.nextInt(20)));
            case 1 -> span.setSpanId(randomBytes(random, random.nextInt(10)));
            case 2 -> span.setParentSpanId(randomBytes(random, random.nextInt(10)));
            case 3 -> span.setSpanId(ByteString.copyFrom(new byte[8]));
            default -> { }
          }
          scopeSpans.addSpans(span);
        }
        resourceSpans.addScopeSpans(scopeSpans);
      }
      request.addResourceSpans(resourceSpans);
    }
    return request.build();
  }

  private static Span.Builder validSpan(Random random) {
    long start = random.nextLong() & Long.MAX_VALUE;
    return Span.newBuilder()
        .setTraceId(randomBytes(random, 16))
        .setSpanId(randomBytes(random, 8))
        .setParentSpanId(random.nextBoolean() ? ByteString.EMPTY : randomBytes(random, 8))
        .setName("op" + random.nextInt(5) + (random.nextBoolean() ? "" : " ünïcode"))
        .setKindValue(random.nextInt(7))
        .setStatus(Status.newBuilder().setCodeValue(random.nextInt(4)).setMessage("m"))
        .setStartTimeUnixNano(start)
        .setEndTimeUnixNano(random.nextInt(10) == 0 ? start - 1 : start + random.nextInt(1_000_000));
  }

  private static List<KeyValue> randomAttributes(Random random, int depth) {
    List<KeyValue> attributes = new ArrayList<>();
    for (int i = random.nextInt(depth == 0 ? 8 : 3); i > 0; i--) {
      attributes.add(KeyValue.newBuilder().setKey("k" + random.nextInt(6))
          .setValue(randomValue(random, depth, false)).build());
    }
    return attributes;
  }

  /**
   * A random value. No bytes inside arrays: the oracle's comparison goes through List.equals,
   * which compares arrays by identity (the mapper decodes bytes the same way at any depth).
   */
  private static AnyValue randomValue(Random random, int depth, boolean inArray) {
    AnyValue.Builder value = AnyValue.newBuilder();
    int kind = random.nextInt(depth < 3 ? 9 : 6);
    if (inArray && kind == 4) {
      kind = 0;
    }
    switch (kind) {
      case 0 -> value.setStringValue("v" + random.nextInt(100));
      case 1 -> value.setBoolValue(random.nextBoolean());
      case 2 -> value.setIntValue(random.nextLong());
      case 3 -> value.setDoubleValue(random.nextGaussian());
      case 4 -> value.setBytesValue(randomBytes(random, random.nextInt(5)));
      case 5 -> { } // empty: absent for lookups
      case 6, 7 -> {
        ArrayValue.Builder array = ArrayValue.newBuilder();
        for (int i = random.nextInt(4); i > 0; i--) {
          array.addValues(randomValue(random, depth + 1, true));
        }
        value.setArrayValue(array);
      }
      default -> value.setKvlistValue(
          KeyValueList.newBuilder().addAllValues(randomAttributes(random, depth + 1)));
    }
    return value.build();
  }

  private static ByteString randomBytes(Random random, int length) {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    return ByteString.copyFrom(bytes);
  }

  private static ExportTraceServiceRequest request(Span span) {
    return ExportTraceServiceRequest.newBuilder().addResourceSpans(ResourceSpans.newBuilder()
        .addScopeSpans(ScopeSpans.newBuilder().addSpans(span))).build();
  }
}
