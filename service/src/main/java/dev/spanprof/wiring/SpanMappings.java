package dev.spanprof.wiring;

import dev.spanprof.config.MappingConfiguration;
import dev.spanprof.span.SpanKind;
import dev.spanprof.span.SpanMapping;
import dev.spanprof.span.StateClass;
import dev.spanprof.span.StateDefinition;
import dev.spanprof.span.StateRule;
import dev.spanprof.span.StateTable;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The core's {@link SpanMapping} made of {@code spanprof.mapping.*} (semantics.md §1): the
 * default rules unless rules are configured, the default state table with the configured states
 * added or overriding; every entry checked, an invalid one failing start-up with its key.
 */
final class SpanMappings {

  private static final Set<String> RULE_KEYS =
      Set.of("attribute", "attributes", "value", "kinds", "name-regex", "state");
  private static final Set<String> STATE_KEYS = Set.of("name", "priority", "class", "category");

  private SpanMappings() {}

  /** The core's mapping; an invalid entry fails start-up with a message naming its key. */
  static SpanMapping of(MappingConfiguration configuration) {
    List<String> resourceKeys = configuration.getResourceKeys();
    List<String> poolKeys = configuration.getPoolKeys();
    String defaultState = configuration.getDefaultState();
    List<Map<String, Object>> rules = configuration.getRules();
    List<Map<String, Object>> states = configuration.getStates();
    if (resourceKeys == null || resourceKeys.isEmpty()) {
      throw invalid("resource-keys", "must name at least one attribute");
    }
    if (poolKeys == null || poolKeys.isEmpty()) {
      throw invalid("pool-keys", "must name at least one attribute");
    }
    if (defaultState == null || defaultState.isBlank()) {
      throw invalid("default-state", "must not be empty");
    }
    List<StateRule> stateRules = new ArrayList<>();
    if (rules == null) {
      stateRules.addAll(StateRule.defaults());
    } else {
      for (int i = 0; i < rules.size(); i++) {
        stateRules.add(rule("rules[" + i + "]", rules.get(i)));
      }
    }
    Map<String, StateDefinition> table = new LinkedHashMap<>();
    for (StateDefinition definition : StateTable.defaults()) {
      table.put(definition.name(), definition);
    }
    Set<String> configured = new HashSet<>();
    for (int i = 0; i < states.size(); i++) {
      StateDefinition definition = state("states[" + i + "]", states.get(i));
      if (!configured.add(definition.name())) {
        throw invalid("states[" + i + "].name", "state '" + definition.name() + "' is defined twice");
      }
      table.put(definition.name(), definition);
    }
    return new SpanMapping(resourceKeys, poolKeys, stateRules, defaultState,
        StateTable.of(List.copyOf(table.values())));
  }

  private static StateRule rule(String key, Map<String, Object> entry) {
    checkKeys(key, entry, RULE_KEYS);
    List<String> attributes = new ArrayList<>();
    if (entry.get("attribute") != null) {
      attributes.add(entry.get("attribute").toString());
    }
    if (entry.get("attributes") != null) {
      attributes.addAll(strings(key + ".attributes", entry.get("attributes")));
    }
    Set<SpanKind> kinds = EnumSet.noneOf(SpanKind.class);
    if (entry.get("kinds") != null) {
      for (String kind : strings(key + ".kinds", entry.get("kinds"))) {
        try {
          kinds.add(SpanKind.valueOf(kind.trim().toUpperCase(Locale.ROOT)));
        } catch (IllegalArgumentException e) {
          throw invalid(key + ".kinds", "unknown span kind '" + kind
              + "'; expected INTERNAL, SERVER, CLIENT, PRODUCER or CONSUMER");
        }
      }
    }
    Pattern namePattern = null;
    if (entry.get("name-regex") != null) {
      try {
        namePattern = Pattern.compile(entry.get("name-regex").toString());
      } catch (PatternSyntaxException e) {
        throw invalid(key + ".name-regex", "'" + entry.get("name-regex")
            + "' is not a valid regular expression: " + e.getDescription());
      }
    }
    Object value = entry.get("value");
    Object state = entry.get("state");
    if (state == null && attributes.isEmpty()) {
      throw invalid(key, "needs a state, or an attribute whose value is the state");
    }
    return new StateRule(attributes, value == null ? null : value.toString(), kinds, namePattern,
        state == null ? null : state.toString());
  }

  private static StateDefinition state(String key, Map<String, Object> entry) {
    checkKeys(key, entry, STATE_KEYS);
    Object name = entry.get("name");
    if (name == null || name.toString().isBlank()) {
      throw invalid(key + ".name", "is required");
    }
    Object priority = entry.get("priority");
    int parsedPriority;
    try {
      parsedPriority = priority == null ? 10 : Integer.parseInt(priority.toString().trim());
    } catch (NumberFormatException e) {
      throw invalid(key + ".priority", "'" + priority + "' is not a whole number");
    }
    Object classLabel = entry.get("class");
    StateClass stateClass = classLabel == null ? StateClass.WAIT
        : StateClass.fromLabel(classLabel.toString().trim().toLowerCase(Locale.ROOT));
    if (stateClass == null) {
      throw invalid(key + ".class", "unknown class '" + classLabel + "'; expected cpu, wait or idle");
    }
    Object category = entry.get("category");
    return new StateDefinition(name.toString(), parsedPriority, stateClass,
        category == null ? StateTable.APPLICATION : category.toString());
  }

  private static void checkKeys(String key, Map<String, Object> entry, Set<String> known) {
    for (String name : entry.keySet()) {
      if (!known.contains(name)) {
        throw invalid(key + "." + name, "unknown key; expected one of " + new TreeSet<>(known));
      }
    }
  }

  private static List<String> strings(String key, Object value) {
    if (value instanceof List<?> list) {
      return list.stream().map(String::valueOf).toList();
    }
    if (value instanceof String text) {
      return List.of(text.split(","));
    }
    throw invalid(key, "must be a list, got " + value);
  }

  private static IllegalArgumentException invalid(String key, String why) {
    return new IllegalArgumentException(MappingConfiguration.PREFIX + "." + key + ": " + why);
  }
}
