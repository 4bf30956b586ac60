package dev.spanprof.wiring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spanprof.analysis.TestSpans;
import dev.spanprof.analysis.trace.TraceAnalyzer;
import dev.spanprof.span.Attributes;
import dev.spanprof.span.SpanKind;
import dev.spanprof.span.SpanMapping;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.StateClass;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.env.Environment;
import io.micronaut.context.env.PropertySource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SpanMappingsTest {

  /** Configuration as the YAML loader produces it: nested maps and lists. */
  private static ApplicationContext start(Map<String, Object> mapping) {
    return ApplicationContext.builder(Environment.TEST)
        .propertySources(PropertySource.of("test", Map.of("spanprof", Map.of("mapping", mapping))))
        .start();
  }

  @Test
  void customRules_mapStatesAsConfigured() {
    try (ApplicationContext context = start(Map.of(
        "resource-keys", List.of("service.name", "gpu.id"),
        "rules", List.of(
            Map.of("attributes", List.of("gpu.kernel"), "state", "running.gpu"),
            Map.of("kinds", List.of("client"), "name-regex", "SELECT .*", "state", "wait.db"),
            Map.of("attribute", "queue", "value", "slow", "state", "wait.queue")),
        "states", List.of(
            Map.of("name", "running.gpu", "priority", 90, "class", "cpu"),
            Map.of("name", "wait.queue", "priority", 40, "class", "wait", "category", "system"))))) {
      SpanMapping mapping = context.getBean(SpanMapping.class);

      assertThat(mapping.state(span("launch", SpanKind.INTERNAL, "gpu.kernel", "matmul")))
          .isEqualTo("running.gpu");
      assertThat(mapping.state(span("SELECT users", SpanKind.CLIENT))).isEqualTo("wait.db");
      assertThat(mapping.state(span("GET /", SpanKind.CLIENT))).isEqualTo("running");
      assertThat(mapping.state(span("take", SpanKind.INTERNAL, "queue", "slow"))).isEqualTo("wait.queue");
      assertThat(mapping.state(span("take", SpanKind.INTERNAL, "queue", "fast"))).isEqualTo("running");
      assertThat(mapping.states().get("running.gpu").stateClass()).isEqualTo(StateClass.CPU);
      assertThat(mapping.states().get("wait.queue").category()).isEqualTo("system");
      // The default table is still there underneath.
      assertThat(mapping.states().get("idle").stateClass()).isEqualTo(StateClass.IDLE);
      assertThat(mapping.resourceId(span("launch", SpanKind.INTERNAL, "gpu.id", 3L)))
          .isEqualTo("checkout/3");
      assertThat(context.getBean(TraceAnalyzer.class)).isNotNull();
    }
  }

  @Test
  void unknownClass_failsNamingTheKey() {
    assertThatThrownBy(() -> start(Map.of("states",
            List.of(Map.of("name", "wait.gpu", "class", "gpu")))).close())
        .hasStackTraceContaining(
            "spanprof.mapping.states[0].class: unknown class 'gpu'; expected cpu, wait or idle");
  }

  @Test
  void badRegex_failsNamingTheKey() {
    assertThatThrownBy(() -> start(Map.of("rules",
            List.of(Map.of("name-regex", "GET (", "state", "wait.net")))).close())
        .hasStackTraceContaining(
            "spanprof.mapping.rules[0].name-regex: 'GET (' is not a valid regular expression");
  }

  @Test
  void duplicateState_failsNamingTheKey() {
    assertThatThrownBy(() -> start(Map.of("states", List.of(
            Map.of("name", "wait.gpu", "class", "wait"),
            Map.of("name", "wait.gpu", "class", "cpu")))).close())
        .hasStackTraceContaining("spanprof.mapping.states[1].name: state 'wait.gpu' is defined twice");
  }

  @Test
  void misspelledRuleKey_failsNamingTheKey() {
    assertThatThrownBy(() -> start(Map.of("rules",
            List.of(Map.of("atribute", "db.system", "state", "wait.db")))).close())
        .hasStackTraceContaining("spanprof.mapping.rules[0].atribute: unknown key");
  }

  @Test
  void unknownKind_failsNamingTheKey() {
    assertThatThrownBy(() -> start(Map.of("rules",
            List.of(Map.of("kinds", List.of("REMOTE"), "state", "wait.net")))).close())
        .hasStackTraceContaining("spanprof.mapping.rules[0].kinds: unknown span kind 'REMOTE'");
  }

  private static SpanRecord span(String name, SpanKind kind, Object... attributes) {
    String[] keys = new String[attributes.length / 2];
    Object[] values = new Object[keys.length];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = (String) attributes[2 * i];
      values[i] = attributes[2 * i + 1];
    }
    return SpanRecord.builder()
        .setTraceId(1, 1)
        .setSpanId(1)
        .setName(name)
        .setKind(kind)
        .setAttributes(Attributes.wrap(keys, values))
        .setResource(TestSpans.RESOURCE)
        .setScope(TestSpans.SCOPE)
        .build();
  }
}
