package dev.spanprof.stages;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.analysis.distribution.DistributionRegistry.Kind;
import dev.spanprof.analysis.distribution.DistributionRegistry.SeriesKey;
import dev.spanprof.span.TraceId;
import dev.spanprof.testing.TestTraffic;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * With {@code spanprof.metrics.dimensions}, span series carry the dimension labels (empty where a
 * span lacks the attribute); the per-trace TTX and TTC series stay keyed by the root's operation.
 */
@MicronautTest
@Property(name = "test.time", value = "manual")
@Property(name = "test.profiles", value = "recording")
@Property(name = "spanprof.metrics.dimensions", value = "service.instance.id")
class DistributionDimensionsTest {

  @Inject ApplicationContext context;
  @Inject DistributionService distributions;

  @Test
  void spanSeriesHaveTheDimension_traceSeriesDoNot() throws Exception {
    TestTraffic.postGolden(context, "fanout-self-time");
    TestTraffic.complete(context, TraceId.fromHex("42a78925f1ecee2d8aecc9722a15fd9b"));

    Set<SeriesKey> keys = distributions.registry().all().keySet();

    assertThat(names(keys, Kind.DURATION)).containsOnly(
        List.of("service_name", "span_name", "span_kind", "status_code", "service_instance_id"));
    assertThat(names(keys, Kind.SELF_TIME)).containsOnly(
        List.of("service_name", "span_name", "service_instance_id"));
    assertThat(names(keys, Kind.TRACE_TTX)).containsOnly(List.of("service_name", "span_name"));
    assertThat(names(keys, Kind.TRACE_TTC)).containsOnly(List.of("service_name", "span_name"));
  }

  private static Set<List<String>> names(Set<SeriesKey> keys, Kind kind) {
    return keys.stream().filter(key -> key.kind() == kind).map(SeriesKey::labelNames)
        .collect(Collectors.toSet());
  }
}
