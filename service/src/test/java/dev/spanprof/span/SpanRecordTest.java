package dev.spanprof.span;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SpanRecordTest {

  private static final SpanResource RESOURCE = new SpanResource("shop",
      Attributes.wrap(new String[] {"service.name", "host.name"}, new Object[] {"shop", "h1"}),
      "", new byte[0]);
  private static final SpanScope SCOPE =
      new SpanScope("test", "", Attributes.empty(), "", new byte[0]);

  private static SpanRecord.Builder builder() {
    return SpanRecord.builder().setTraceId(1, 2).setSpanId(3).setName("pay")
        .setResource(RESOURCE).setScope(SCOPE).setEncoded(new byte[] {1, 2, 3});
  }

  @Test
  void endBeforeStart_keptAsReceived_analysedAsZeroLength() {
    SpanRecord span = builder().setStartNanos(100).setEndNanos(40)
        .setAttributes(Attributes.empty()).build();

    assertThat(span.endNanos()).isEqualTo(40);
    assertThat(span.endsBeforeStart()).isTrue();
    assertThat(span.effectiveEndNanos()).isEqualTo(100);
    assertThat(span.durationNanos()).isZero();
  }

  @Test
  void attribute_ownFirstThenTheResources() {
    SpanRecord span = builder().setStartNanos(0).setEndNanos(10)
        .setAttributes(Attributes.wrap(new String[] {"host.name"}, new Object[] {"own"})).build();

    assertThat(span.attribute("host.name")).isEqualTo("own");
    assertThat(span.attribute("service.name")).isEqualTo("shop");
    assertThat(span.attribute("absent")).isNull();
  }

  @Test
  void attributes_decodedOnceFromTheEncodingWhenFirstAskedFor() {
    AtomicInteger decoded = new AtomicInteger();
    SpanRecord span = builder().setStartNanos(0).setEndNanos(10)
        .setAttributes((buffer, offset, length) -> {
          decoded.incrementAndGet();
          assertThat(length).isEqualTo(3);
          return Attributes.wrap(new String[] {"k"}, new Object[] {"v"});
        }).build();

    assertThat(decoded).hasValue(0);
    assertThat(span.attribute("k")).isEqualTo("v");
    assertThat(span.attributes().get("k")).isEqualTo("v");
    assertThat(decoded).hasValue(1);
  }

  @Test
  void builder_reused_eachRecordKeepsItsOwnValues() {
    SpanRecord.Builder builder = builder().setAttributes(Attributes.empty());
    SpanRecord failed = builder.setSpanId(7).setStatus(SpanStatus.ERROR)
        .setStatusMessage("503").setStartNanos(0).setEndNanos(5).build();
    SpanRecord fine = builder.setSpanId(8).setStatus(SpanStatus.OK).setStatusMessage("")
        .build();

    assertThat(failed.spanId()).isEqualTo(7);
    assertThat(failed.status()).isEqualTo(SpanStatus.ERROR);
    assertThat(failed.statusMessage()).isEqualTo("503");
    assertThat(fine.spanId()).isEqualTo(8);
    assertThat(fine.statusMessage()).isEmpty();
    assertThat(builder().setAttributes(Attributes.empty()).build().statusMessage())
        .as("no message unless set").isEmpty();
  }
}
