package dev.spanprof.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.spanprof.otlp.InvalidOtlpException;
import dev.spanprof.span.Attributes;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.common.v1.KeyValueList;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** OTLP attribute values read straight from their encoding, every type of AnyValue. */
class OtlpAttributesTest {

  private final OtlpAttributes attributes = new OtlpAttributes(new StringInterner(1000));

  @Test
  void decode_spanAttributes_everyValueType() {
    Span span = Span.newBuilder().setName("pay")
        .addAttributes(kv("s", AnyValue.newBuilder().setStringValue("text")))
        .addAttributes(kv("b", AnyValue.newBuilder().setBoolValue(true)))
        .addAttributes(kv("i", AnyValue.newBuilder().setIntValue(-42)))
        .addAttributes(kv("d", AnyValue.newBuilder().setDoubleValue(2.5)))
        .addAttributes(kv("bytes", AnyValue.newBuilder().setBytesValue(
            ByteString.copyFrom(new byte[] {1, 2}))))
        .addAttributes(kv("array", AnyValue.newBuilder().setArrayValue(ArrayValue.newBuilder()
            .addValues(AnyValue.newBuilder().setIntValue(1))
            .addValues(AnyValue.getDefaultInstance())
            .addValues(AnyValue.newBuilder().setStringValue("x")))))
        .addAttributes(kv("map", AnyValue.newBuilder().setKvlistValue(KeyValueList.newBuilder()
            .addValues(kv("inner", AnyValue.newBuilder().setStringValue("deep"))))))
        .addAttributes(kv("empty", AnyValue.newBuilder()))
        .build();
    byte[] bytes = span.toByteArray();

    Attributes decoded = attributes.decode(bytes, 0, bytes.length);

    assertThat(decoded.get("s")).isEqualTo("text");
    assertThat(decoded.get("b")).isEqualTo(true);
    assertThat(decoded.get("i")).isEqualTo(-42L);
    assertThat(decoded.get("d")).isEqualTo(2.5);
    assertThat((byte[]) decoded.get("bytes")).containsExactly(1, 2);
    assertThat(decoded.get("array")).isEqualTo(Arrays.asList(1L, null, "x"));
    assertThat(((Attributes) decoded.get("map")).get("inner")).isEqualTo("deep");
    assertThat(decoded.get("empty")).as("an empty value is as absent").isNull();
    assertThat(decoded.get("absent")).isNull();
  }

  @Test
  void decode_invalidUtf8_replacedNotRefused() {
    byte[] bytes = Span.newBuilder().addAttributes(kv("s",
        AnyValue.newBuilder().setStringValue("a#b"))).build().toByteArray();
    // protobuf-java writes only valid UTF-8: the byte is spoiled after encoding.
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] == '#') {
        bytes[i] = (byte) 0xC3;
      }
    }

    assertThat(attributes.decode(bytes, 0, bytes.length).get("s")).isEqualTo("a\uFFFDb");
  }

  @Test
  void decode_resourceEntries_byTheirField() throws Exception {
    byte[] resource = Resource.newBuilder()
        .addAttributes(kv("service.name", AnyValue.newBuilder().setStringValue("shop")))
        .build().toByteArray();

    Attributes decoded = attributes.decode(resource, 0, resource.length,
        OtlpAttributes.LIST_ENTRIES);

    assertThat(decoded.get("service.name")).isEqualTo("shop");
  }

  @Test
  void decode_nestedDeeperThanTheLimit_refused() {
    AnyValue value = AnyValue.newBuilder().setStringValue("bottom").build();
    for (int i = 0; i <= OtlpAttributes.MAX_DEPTH; i++) {
      value = AnyValue.newBuilder().setArrayValue(ArrayValue.newBuilder().addValues(value))
          .build();
    }
    byte[] resource = Resource.newBuilder().addAttributes(KeyValue.newBuilder().setKey("deep")
        .setValue(value)).build().toByteArray();

    assertThatThrownBy(() -> attributes.decode(resource, 0, resource.length,
        OtlpAttributes.LIST_ENTRIES)).isInstanceOf(InvalidOtlpException.class);
  }

  private static KeyValue kv(String key, AnyValue.Builder value) {
    return KeyValue.newBuilder().setKey(key).setValue(value).build();
  }
}
