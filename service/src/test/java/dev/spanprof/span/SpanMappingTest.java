package dev.spanprof.span;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spanprof.analysis.TestSpans;
import dev.spanprof.analysis.trace.TraceAnalyzer;
import dev.spanprof.analysis.trace.TraceProfile;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
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
      resourceIds.add(ids.mapped(span).resourceId());
      poolIds.add(ids.mapped(span).poolId());
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
      assertThat(defaults.mapped(span).resourceId()).isEqualTo("checkout/c-1");
      assertThat(other.mapped(span).resourceId()).isEqualTo("checkout");
      assertThat(defaults.mapped(span).poolId()).isEqualTo("checkout/c-1");
      assertThat(other.mapped(span).poolId()).isEqualTo("c-1");
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
      List<String> resourceIds = spans.stream().map(span -> ids.mapped(span).resourceId()).toList();
      assertThat(resourceIds).isEqualTo(spans.stream().map(MAPPING::resourceId).toList());
      assertThat(resourceIds.get(199)).isEqualTo("checkout/c-1/199");
    }
  }

  @Test
  void mapper_givesTheSingleSpanDerivations_forSpansSharingKeyLists() {
    // Key lists shared by many spans, as the ingest decoder shares them, one with a repeated key;
    // values drawn at random, some empty (absent); resources that name mapping keys too.
    String[][] keyNames = {
        {"thread.id", "db.system", "spanprof.cores"},
        {"db.system", "db.system", "spanprof.state", "service.instance.id", "queue"},
        {"spanprof.category", "spanprof.pool.capacity", "messaging.system", "thread.id",
            "service.name", "db.system.name"},
        {"thread.id", "http.route"},
        {}};
    Attributes.Keys[] keyLists = Arrays.stream(keyNames)
        .map(names -> Attributes.Keys.of(names.clone())).toArray(Attributes.Keys[]::new);
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
    // Whether each span names a spanprof.* key, even with an empty value.
    List<Boolean> namesSpanprofKeys = new ArrayList<>();
    // Each span's key list, encoding and value ranges, to map it again from them below.
    List<Attributes.Keys> spanKeys = new ArrayList<>();
    List<byte[]> encodings = new ArrayList<>();
    List<int[]> valueRanges = new ArrayList<>();
    Attributes.ValueDecoder decoder = (buffer, offset, length) ->
        length == 0 ? null : new String(buffer, offset, length, StandardCharsets.UTF_8);
    for (int i = 0; i < 600; i++) {
      int keyList = random.nextInt(keyLists.length);
      Attributes.Keys keys = keyLists[keyList];
      namesSpanprofKeys.add(
          Arrays.stream(keyNames[keyList]).anyMatch(name -> name.startsWith("spanprof.")));
      StringBuilder encoding = new StringBuilder();
      int[] ranges = new int[2 * keys.size()];
      for (int k = 0; k < keys.size(); k++) {
        String value = values[random.nextInt(values.length)];
        ranges[2 * k] = encoding.length();
        ranges[2 * k + 1] = value.length();
        encoding.append(value);
      }
      byte[] encoded = encoding.toString().getBytes(StandardCharsets.UTF_8);
      spanKeys.add(keys);
      encodings.add(encoded);
      valueRanges.add(ranges.clone());
      Attributes attributes = Attributes.encoded(keys, encoded, ranges, decoder);
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
        for (int i = 0; i < spans.size(); i++) {
          SpanRecord span = spans.get(i);
          MappedSpan mapped = mapper.mapped(span);
          String state = mapped.state();
          assertThat(state).as("state of %s", span).isEqualTo(mapping.state(span));
          StateDefinition definition = mapping.states().get(state);
          assertThat(mapped.category()).isEqualTo(mapping.category(span, definition));
          assertThat(mapped.resourceId()).isEqualTo(mapping.resourceId(span));
          assertThat(mapped.poolId()).isEqualTo(mapping.poolId(span));
          // Boxed, so NaN (no capacity, or not a number) equals NaN.
          assertThat(Double.valueOf(mapped.cores())).isEqualTo(Double.valueOf(mapping.cores(span)));
          assertThat(Double.valueOf(mapped.capacity())).isEqualTo(Double.valueOf(mapping.capacity(span)));
          assertThat(mapped.namesSpanprofKeys()).isEqualTo(namesSpanprofKeys.get(i));
        }
      }
    }
    // As the ingest maps spans: each one's attributes read in place from one scratch array of
    // ranges and one of bytes, written over span by span, with what earlier spans left past this
    // span's; a view serves the next span with the same keys.
    int[] scratchRanges = new int[64];
    byte[] scratchBytes = new byte[256];
    Arrays.fill(scratchRanges, -1);
    int viewsServedAgain = 0;
    for (SpanMapping mapping : List.of(MAPPING, queues)) {
      SpanMapping.Mapper inPlace = mapping.mapper();
      SpanMapping.Mapper fromTheSpans = mapping.mapper();
      Attributes view = Attributes.empty();
      for (int i = 0; i < spans.size(); i++) {
        int[] ranges = valueRanges.get(i);
        System.arraycopy(ranges, 0, scratchRanges, 0, ranges.length);
        byte[] encoded = encodings.get(i);
        System.arraycopy(encoded, 0, scratchBytes, 0, encoded.length);
        Attributes.Keys keys = spanKeys.get(i);
        if (view.viewOf(keys, scratchBytes, scratchRanges, decoder)) {
          viewsServedAgain++;
        } else {
          view = Attributes.encodedView(keys, scratchBytes, scratchRanges, decoder);
        }
        assertThat(view).as("span %d", i).isEqualTo(spans.get(i).attributes());
        assertThat(inPlace.mapped(spans.get(i), view)).as("span %d", i)
            .isEqualTo(fromTheSpans.mapped(spans.get(i)));
      }
    }
    assertThat(viewsServedAgain).isPositive();
    assertThatThrownBy(() -> Attributes.encodedView(keyLists[0], new byte[0], new int[5], decoder))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expected an offset and a length for each of 3 keys, got 5 numbers");
    // The draw reaches every branch the rules have.
    assertThat(spans.stream().map(queues::state).distinct())
        .contains("wait.queue", "postgresql", "mysql", "idle");
    assertThat(spans.stream().map(MAPPING::state).distinct())
        .contains("wait.queue", "staging", "wait.db", "wait.net", "wait.messaging", "running");
  }

  @Test
  void build_withAMapper_mapsTheSpanOnceAndKeepsNotItsAttributes() {
    AtomicInteger decodes = new AtomicInteger();
    SpanRecord.Builder builder = countingSpan(decodes,
        new String[] {"thread.id", "db.system"}, new Object[] {7L, "postgresql"});

    SpanRecord span = builder.setMapper(MAPPING.mapper()).build();

    assertThat(decodes).hasValue(1);
    // Not kept: asked for, the attributes are decoded again (and then kept, as before).
    span.attributes();
    span.attributes();
    assertThat(decodes).hasValue(2);
    MappedSpan mapped = span.mappedBy(MAPPING);
    assertThat(mapped.resourceId()).isEqualTo("checkout/c-1/7").isEqualTo(MAPPING.resourceId(span));
    assertThat(mapped.state()).isEqualTo("wait.db").isEqualTo(MAPPING.state(span));
    assertThat(span.mappedBy(SpanMapping.defaults())).as("another mapping's").isNull();
    assertThat(span.mayNameSpanprofKeys()).isFalse();
  }

  @Test
  void build_withoutAMapper_mapsNothingAndMayNameAnyKey() {
    AtomicInteger decodes = new AtomicInteger();

    SpanRecord span = countingSpan(decodes, new String[] {"thread.id"}, new Object[] {7L}).build();

    assertThat(decodes).hasValue(0);
    assertThat(span.mappedBy(MAPPING)).isNull();
    assertThat(span.mayNameSpanprofKeys()).isTrue();
  }

  @Test
  void build_spanNamingASpanprofKeyEvenEmpty_mayNameSpanprofKeys() {
    SpanRecord span = countingSpan(new AtomicInteger(),
        new String[] {"thread.id", "spanprof.self_time_ns"}, new Object[] {7L, null})
        .setMapper(MAPPING.mapper()).build();

    assertThat(span.mayNameSpanprofKeys()).isTrue();
  }

  @Test
  void mapped_spansWithTheSameOutcome_shareOne() {
    SpanMapping.Mapper mapper = MAPPING.mapper();
    SpanResource checkout = resource("checkout", "c-1");

    MappedSpan first = mapper.mapped(span(checkout, attributes("thread.id", 7L)));
    MappedSpan same = mapper.mapped(span(checkout, attributes("thread.id", 7L)));
    MappedSpan other = mapper.mapped(span(checkout, attributes("thread.id", 8L)));

    assertThat(same).isSameAs(first);
    assertThat(other.resourceId()).isEqualTo("checkout/c-1/8");
  }

  @Test
  void analyze_spansMappedAtIngestByItsMapping_decodesNoAttributesAndProfilesTheSame() {
    AtomicInteger decodes = new AtomicInteger();
    List<SpanRecord> mappedAtIngest = new ArrayList<>();
    List<SpanRecord> unmapped = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      SpanRecord.Builder builder = countingSpan(decodes,
          new String[] {"thread.id", i % 2 == 0 ? "db.system" : "spanprof.cores"},
          new Object[] {(long) i % 3, i % 2 == 0 ? "mysql" : "2"})
          .setSpanId(i + 1).setParentSpanId(i == 0 ? 0 : 1).setStartNanos(i).setEndNanos(20 - i);
      mappedAtIngest.add(builder.setMapper(MAPPING.mapper()).build());
      unmapped.add(builder.setMapper(null).build());
    }
    int decodesAtIngest = decodes.get();

    TraceProfile profile = new TraceAnalyzer(MAPPING).analyze(new TraceId(0, 1), mappedAtIngest);

    assertThat(decodes).as("decoded in the analysis").hasValue(decodesAtIngest);
    assertThat(profile).isEqualTo(new TraceAnalyzer(MAPPING).analyze(new TraceId(0, 1), unmapped));
    assertThat(decodes.get()).as("the unmapped spans, decoded by the analysis")
        .isGreaterThan(decodesAtIngest);
  }

  /** A span whose attributes, {@code keys} and {@code values}, count each decoding. */
  private static SpanRecord.Builder countingSpan(AtomicInteger decodes, String[] keys,
      Object[] values) {
    return SpanRecord.builder()
        .setTraceId(0, 1).setSpanId(1).setName("op").setKind(SpanKind.CLIENT)
        .setStartNanos(0).setEndNanos(10)
        .setAttributes((buffer, offset, length) -> {
          decodes.incrementAndGet();
          return Attributes.wrap(keys.clone(), values.clone());
        })
        .setResource(resource("checkout", "c-1")).setScope(TestSpans.SCOPE);
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
