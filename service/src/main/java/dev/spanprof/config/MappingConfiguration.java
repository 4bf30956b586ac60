package dev.spanprof.config;

import dev.spanprof.span.SpanMapping;
import io.micronaut.context.annotation.ConfigurationProperties;
import java.util.List;
import java.util.Map;

/**
 * {@code spanprof.mapping.*}: how span attributes become resources, pools and states
 * (semantics.md §1). Unset keys keep the defaults of semantics.md; configured {@code rules}
 * replace the default rules, configured {@code states} add to or override the default table.
 * Plain properties: {@code wiring.SpanMappings} makes the core's mapping of them.
 *
 * <pre>
 * spanprof.mapping:
 *   resource-keys: [service.name, service.instance.id, thread.id]
 *   pool-keys: [service.name, service.instance.id]
 *   default-state: running
 *   rules:                       # first match wins
 *     - attributes: [spanprof.state]          # no state: the attribute's value is the state
 *     - attributes: [db.system, db.system.name]
 *       state: wait.db
 *     - kinds: [CLIENT, PRODUCER]
 *       name-regex: "GET .*"                  # also: value (the attribute's value must equal it)
 *       state: wait.net
 *   states:
 *     - {name: wait.gpu, priority: 70, class: wait, category: application}
 * </pre>
 */
@ConfigurationProperties(MappingConfiguration.PREFIX)
public final class MappingConfiguration {

  public static final String PREFIX = "spanprof.mapping";

  private List<String> resourceKeys = SpanMapping.DEFAULT_RESOURCE_KEYS;
  private List<String> poolKeys = SpanMapping.DEFAULT_POOL_KEYS;
  private String defaultState = SpanMapping.DEFAULT_STATE;
  private List<Map<String, Object>> rules;
  private List<Map<String, Object>> states = List.of();

  public List<String> getResourceKeys() {
    return resourceKeys;
  }

  public void setResourceKeys(List<String> resourceKeys) {
    this.resourceKeys = resourceKeys;
  }

  public List<String> getPoolKeys() {
    return poolKeys;
  }

  public void setPoolKeys(List<String> poolKeys) {
    this.poolKeys = poolKeys;
  }

  public String getDefaultState() {
    return defaultState;
  }

  public void setDefaultState(String defaultState) {
    this.defaultState = defaultState;
  }

  /** Null means the default rules of semantics.md §1. */
  public List<Map<String, Object>> getRules() {
    return rules;
  }

  public void setRules(List<Map<String, Object>> rules) {
    this.rules = rules;
  }

  public List<Map<String, Object>> getStates() {
    return states;
  }

  public void setStates(List<Map<String, Object>> states) {
    this.states = states;
  }
}
