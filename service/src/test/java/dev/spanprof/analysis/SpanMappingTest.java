package dev.spanprof.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SpanMappingTest {

  private static final SpanMapping MAPPING = SpanMapping.defaults();

  @Test
  void ids_equalThePerSpanDerivationWhateverTheSpansNameThemselves() {
    SpanResource checkout = resource("checkout", "c-1");
    SpanResource payment = resource("payment", "p-7");
    List<SpanRecord> spans = new ArrayList<>();
    spans.add(span(checkout, Attributes.empty()));
    spans.add(span(checkout, attributes("thread.id", 3L)));
    spans.add(span(checkout, attributes("service.instance.id", "c-2")));
    spans.add(span(payment, Attributes.empty()));
    spans.add(span(checkout, Attributes.empty()));
    spans.add(span(payment, attributes("service.name", "override")));
    spans.add(span(payment, Attributes.empty()));
    // The same value under two different keys, a value seen before, two values of its own.
    spans.add(span(checkout, attributes("thread.id", "9")));
    spans.add(span(checkout, attributes("service.instance.id", "9")));
    spans.add(span(checkout, attributes("thread.id", 3L)));
    spans.add(span(checkout, Attributes.wrap(new String[] {"service.instance.id", "thread.id"},
        new Object[] {"c-9", 4L})));

    SpanMapping.Ids ids = MAPPING.ids();
    List<String> resourceIds = new ArrayList<>();
    List<String> poolIds = new ArrayList<>();
    for (SpanRecord span : spans) {
      resourceIds.add(ids.resourceId(span));
      poolIds.add(ids.poolId(span));
    }

    assertThat(resourceIds).containsExactly("checkout/c-1", "checkout/c-1/3", "checkout/c-2",
        "payment/p-7", "checkout/c-1", "override/p-7", "payment/p-7",
        "checkout/c-1/9", "checkout/9", "checkout/c-1/3", "checkout/c-9/4");
    assertThat(poolIds).containsExactly("checkout/c-1", "checkout/c-1", "checkout/c-2",
        "payment/p-7", "checkout/c-1", "override/p-7", "payment/p-7",
        "checkout/c-1", "checkout/9", "checkout/c-1", "checkout/c-9");
    assertThat(resourceIds).isEqualTo(spans.stream().map(MAPPING::resourceId).toList());
    assertThat(poolIds).isEqualTo(spans.stream().map(MAPPING::poolId).toList());
  }

  @Test
  void ids_ofAResourceSharedByTwoMappings_areEachMappingsOwn() {
    SpanResource checkout = resource("checkout", "c-1");
    SpanRecord span = span(checkout, Attributes.empty());
    SpanMapping byService = new SpanMapping(List.of("service.name"), List.of("service.instance.id"),
        StateRule.defaults(), SpanMapping.DEFAULT_STATE, StateTable.of(StateTable.defaults()));

    // Alternating, so each mapping finds the other's ids remembered on the resource.
    for (int analysis = 0; analysis < 2; analysis++) {
      SpanMapping.Ids defaults = MAPPING.ids();
      SpanMapping.Ids other = byService.ids();
      assertThat(defaults.resourceId(span)).isEqualTo("checkout/c-1");
      assertThat(other.resourceId(span)).isEqualTo("checkout");
      assertThat(defaults.poolId(span)).isEqualTo("checkout/c-1");
      assertThat(other.poolId(span)).isEqualTo("c-1");
    }
  }

  @Test
  void ids_pastWhatAResourceRemembers_areStillJoinedCorrectly() {
    SpanResource checkout = resource("checkout", "c-1");
    List<SpanRecord> spans = new ArrayList<>();
    for (long thread = 0; thread < 200; thread++) {
      spans.add(span(checkout, attributes("thread.id", thread)));
    }

    // Two analyses of the same resource: the second finds what the first remembered.
    for (int analysis = 0; analysis < 2; analysis++) {
      SpanMapping.Ids ids = MAPPING.ids();
      List<String> resourceIds = spans.stream().map(ids::resourceId).toList();
      assertThat(resourceIds).isEqualTo(spans.stream().map(MAPPING::resourceId).toList());
      assertThat(resourceIds.get(199)).isEqualTo("checkout/c-1/199");
    }
  }

  private static SpanResource resource(String service, String instance) {
    return new SpanResource(service,
        Attributes.wrap(new String[] {"service.name", "service.instance.id"},
            new Object[] {service, instance}),
        "", new byte[0]);
  }

  private static Attributes attributes(String key, Object value) {
    return Attributes.wrap(new String[] {key}, new Object[] {value});
  }

  private static SpanRecord span(SpanResource resource, Attributes attributes) {
    return SpanRecord.builder()
        .setTraceId(0, 1)
        .setSpanId(1)
        .setName("op")
        .setStartNanos(0)
        .setEndNanos(10)
        .setAttributes(attributes)
        .setResource(resource)
        .setScope(TestSpans.SCOPE)
        .build();
  }
}
