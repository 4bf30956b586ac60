package dev.spanprof.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.regex.Pattern;
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

    SpanMapping.Mapper ids = MAPPING.mapper();
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
      SpanMapping.Mapper defaults = MAPPING.mapper();
      SpanMapping.Mapper other = byService.mapper();
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
      SpanMapping.Mapper ids = MAPPING.mapper();
      List<String> resourceIds = spans.stream().map(ids::resourceId).toList();
      assertThat(resourceIds).isEqualTo(spans.stream().map(MAPPING::resourceId).toList());
      assertThat(resourceIds.get(199)).isEqualTo("checkout/c-1/199");
    }
  }

  @Test
  void mapper_givesTheSingleSpanDerivations_forSpansSharingKeyLists() {
    // Key lists shared by many spans, as the ingest decoder shares them, one with a repeated key;
    // values drawn at random, some empty (absent); resources that name mapping keys too.
    Attributes.Keys[] keyLists = {
        Attributes.Keys.of(new String[] {"thread.id", "db.system", "spanprof.cores"}),
        Attributes.Keys.of(new String[] {"db.system", "db.system", "spanprof.state",
            "service.instance.id", "queue"}),
        Attributes.Keys.of(new String[] {"spanprof.category", "spanprof.pool.capacity",
            "messaging.system", "thread.id", "service.name", "db.system.name"}),
        Attributes.Keys.of(new String[0])};
    String[] values = {"", "", "7", "2.5", "x", "wait.queue", "postgresql", "slow", "fast"};
    SpanResource[] resources = {
        resource("checkout", "c-1"),
        new SpanResource("payment", Attributes.wrap(
            new String[] {"service.name", "spanprof.state", "spanprof.cores", "thread.id"},
            new Object[] {"payment", "staging", "4", 11L}), "", new byte[0]),
        new SpanResource("db", Attributes.wrap(
            new String[] {"db.system", "spanprof.pool.capacity", "spanprof.category"},
            new Object[] {"mysql", 8L, "system"}), "", new byte[0])};
    SpanKind[] kinds = SpanKind.values();
    Random random = new Random(7);
    List<SpanRecord> spans = new ArrayList<>();
    for (int i = 0; i < 600; i++) {
      Attributes.Keys keys = keyLists[random.nextInt(keyLists.length)];
      StringBuilder encoding = new StringBuilder();
      int[] ranges = new int[2 * keys.size()];
      for (int k = 0; k < keys.size(); k++) {
        String value = values[random.nextInt(values.length)];
        ranges[2 * k] = encoding.length();
        ranges[2 * k + 1] = value.length();
        encoding.append(value);
      }
      Attributes attributes = Attributes.encoded(keys,
          encoding.toString().getBytes(StandardCharsets.UTF_8), ranges,
          (buffer, offset, length) ->
              length == 0 ? null : new String(buffer, offset, length, StandardCharsets.UTF_8));
      // Runs of one resource, as requests give them, and some switching span to span.
      SpanResource resource = resources[(i / 40 + (i % 7 == 0 ? 1 : 0)) % resources.length];
      spans.add(SpanRecord.builder().setTraceId(0, 1).setSpanId(i + 1)
          .setName(random.nextBoolean() ? "op" : "take")
          .setKind(kinds[random.nextInt(kinds.length)])
          .setStartNanos(0).setEndNanos(10)
          .setAttributes(attributes).setResource(resource).setScope(TestSpans.SCOPE).build());
    }
    SpanMapping queues = new SpanMapping(List.of("service.name", "thread.id"), List.of("queue"),
        List.of(new StateRule(List.of("queue"), "slow", Set.of(), Pattern.compile("take"),
            "wait.queue"), new StateRule(List.of("db.system"), null, Set.of(), null, null)),
        "idle", StateTable.of(StateTable.defaults()));

    // Two mappings in turn, so each finds the other's positions remembered on the key lists.
    for (int analysis = 0; analysis < 2; analysis++) {
      for (SpanMapping mapping : List.of(MAPPING, queues)) {
        SpanMapping.Mapper mapper = mapping.mapper();
        for (SpanRecord span : spans) {
          String state = mapper.state(span);
          assertThat(state).as("state of %s", span).isEqualTo(mapping.state(span));
          StateDefinition definition = mapping.states().get(state);
          assertThat(mapper.category(span, definition)).isEqualTo(mapping.category(span, definition));
          assertThat(mapper.resourceId(span)).isEqualTo(mapping.resourceId(span));
          assertThat(mapper.poolId(span)).isEqualTo(mapping.poolId(span));
          // Boxed, so NaN (no capacity, or not a number) equals NaN.
          assertThat(Double.valueOf(mapper.cores(span))).isEqualTo(Double.valueOf(mapping.cores(span)));
          assertThat(Double.valueOf(mapper.capacity(span))).isEqualTo(Double.valueOf(mapping.capacity(span)));
        }
      }
    }
    // The draw reaches every branch the rules have.
    assertThat(spans.stream().map(queues::state).distinct())
        .contains("wait.queue", "postgresql", "mysql", "idle");
    assertThat(spans.stream().map(MAPPING::state).distinct())
        .contains("wait.queue", "staging", "wait.db", "wait.net", "wait.messaging", "running");
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
