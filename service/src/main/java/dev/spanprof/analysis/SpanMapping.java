package dev.spanprof.analysis;

import java.util.List;
import java.util.Objects;

/**
 * How span attributes become resource ids, pool ids, states, categories, cores and capacities
 * (semantics.md §1). Every lookup is the span's attribute first, then its resource's.
 */
public final class SpanMapping {

  public static final String STATE_ATTRIBUTE = "spanprof.state";
  public static final String CATEGORY_ATTRIBUTE = "spanprof.category";
  public static final String CORES_ATTRIBUTE = "spanprof.cores";
  public static final String CAPACITY_ATTRIBUTE = "spanprof.pool.capacity";
  public static final List<String> DEFAULT_RESOURCE_KEYS =
      List.of("service.name", "service.instance.id", "thread.id");
  public static final List<String> DEFAULT_POOL_KEYS = List.of("service.name", "service.instance.id");
  public static final String DEFAULT_STATE = "running";

  private final List<String> resourceKeys;
  private final List<String> poolKeys;
  private final List<StateRule> rules;
  private final String defaultState;
  private final StateTable states;

  public SpanMapping(
      List<String> resourceKeys,
      List<String> poolKeys,
      List<StateRule> rules,
      String defaultState,
      StateTable states) {
    this.resourceKeys = List.copyOf(resourceKeys);
    this.poolKeys = List.copyOf(poolKeys);
    this.rules = List.copyOf(rules);
    this.defaultState = Objects.requireNonNull(defaultState, "defaultState");
    this.states = Objects.requireNonNull(states, "states");
  }

  /** The defaults of semantics.md §1. */
  public static SpanMapping defaults() {
    return new SpanMapping(DEFAULT_RESOURCE_KEYS, DEFAULT_POOL_KEYS, StateRule.defaults(),
        DEFAULT_STATE, StateTable.of(StateTable.defaults()));
  }

  /** The values of the present resource keys joined with '/'; "" when none is present. */
  public String resourceId(SpanRecord span) {
    return join(span, resourceKeys);
  }

  public String poolId(SpanRecord span) {
    return join(span, poolKeys);
  }

  /** The first matching rule's state, else the default state. */
  public String state(SpanRecord span) {
    for (StateRule rule : rules) {
      String state = rule.match(span);
      if (state != null) {
        return state;
      }
    }
    return defaultState;
  }

  public StateTable states() {
    return states;
  }

  /** {@code spanprof.category} if present, else the state's category. */
  public String category(SpanRecord span, StateDefinition state) {
    Object category = span.attribute(CATEGORY_ATTRIBUTE);
    return category != null ? text(category) : state.category();
  }

  /** {@code spanprof.cores}, default 1; NaN when present but not a number. */
  public double cores(SpanRecord span) {
    Object cores = span.attribute(CORES_ATTRIBUTE);
    return cores == null ? 1 : number(cores);
  }

  /** {@code spanprof.pool.capacity}; NaN when absent or not a number (not an allocation span). */
  public double capacity(SpanRecord span) {
    Object capacity = span.attribute(CAPACITY_ATTRIBUTE);
    return capacity == null ? Double.NaN : number(capacity);
  }

  private static String join(SpanRecord span, List<String> keys) {
    StringBuilder id = new StringBuilder();
    for (String key : keys) {
      Object value = span.attribute(key);
      if (value != null) {
        if (!id.isEmpty()) {
          id.append('/');
        }
        id.append(text(value));
      }
    }
    return id.toString();
  }

  /** An attribute value as text: numbers without a trailing ".0" when whole. */
  static String text(Object value) {
    if (value instanceof Double number && number == Math.rint(number) && !number.isInfinite()) {
      return Long.toString(number.longValue());
    }
    return String.valueOf(value);
  }

  /** A numeric attribute: a number, or text that parses as one (OTLP senders use both). */
  private static double number(Object value) {
    if (value instanceof Number number) {
      return number.doubleValue();
    }
    try {
      return Double.parseDouble(value.toString().trim());
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }
}
