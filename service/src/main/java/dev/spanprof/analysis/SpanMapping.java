package dev.spanprof.analysis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
    for (int i = 0; i < rules.size(); i++) {
      String state = rules.get(i).match(span);
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

  /**
   * Resource and pool ids for the spans of one analysis, taken one after another, building each
   * distinct id once: a span's id depends on its resource and on the few keys it names itself
   * (often none, or a {@code thread.id}), and a trace's spans come in blocks per resource. So the
   * resource's part is derived once per resource and remembered on it (the other traces of its
   * request need it too), and the ids of the values spans name themselves are remembered for the
   * run of spans sharing it. Not thread-safe.
   */
  public final class Ids {
    private final IdCache resourceIds = new IdCache(resourceKeys);
    private final IdCache poolIds = new IdCache(poolKeys);
    private SpanResource resource;

    private Ids() {}

    /** Equal to {@link SpanMapping#resourceId(SpanRecord)}. */
    public String resourceId(SpanRecord span) {
      setResource(span.resource());
      return resourceIds.id(span);
    }

    /** Equal to {@link SpanMapping#poolId(SpanRecord)}. */
    public String poolId(SpanRecord span) {
      setResource(span.resource());
      return poolIds.id(span);
    }

    private void setResource(SpanResource next) {
      if (next != resource) {
        resource = next;
        ResourceIds ids = resourceIds(next);
        resourceIds.reset(ids.resourceId());
        poolIds.reset(ids.poolId());
      }
    }
  }

  /** A resource's ids under this mapping for spans naming none of the keys themselves. */
  record ResourceIds(SpanMapping mapping, String resourceId, String poolId) {}

  private ResourceIds resourceIds(SpanResource resource) {
    ResourceIds ids = resource.mappedIds();
    if (ids == null || ids.mapping() != this) {
      Attributes attributes = resource.attributes();
      ids = new ResourceIds(this, join(Attributes.empty(), attributes, resourceKeys),
          join(Attributes.empty(), attributes, poolKeys));
      resource.mappedIds(ids);
    }
    return ids;
  }

  /** A fresh {@link Ids} for one analysis. */
  public Ids ids() {
    return new Ids();
  }

  /** The ids under one list of keys for the spans of one resource. */
  private static final class IdCache {
    private final List<String> keys;
    /** The id of a span that names none of the keys itself. */
    private String resourceOnlyId;
    /**
     * Per key position, the ids of spans naming that key alone themselves, by its value: the
     * usual case (a thread id), found without building a key.
     */
    private final List<Map<Object, String>> idsBySingleValue;
    private final Map<OwnValues, String> idsByOwnValues = new HashMap<>();

    IdCache(List<String> keys) {
      this.keys = keys;
      List<Map<Object, String>> maps = new ArrayList<>(keys.size());
      for (int i = 0; i < keys.size(); i++) {
        maps.add(new HashMap<>());
      }
      this.idsBySingleValue = maps;
    }

    void reset(String resourceOnlyId) {
      this.resourceOnlyId = resourceOnlyId;
      idsBySingleValue.forEach(Map::clear);
      idsByOwnValues.clear();
    }

    String id(SpanRecord span) {
      Attributes attributes = span.attributes();
      int singlePosition = -1;
      Object singleValue = null;
      Object[] values = null;
      for (int i = 0; i < keys.size(); i++) {
        Object value = attributes.get(keys.get(i));
        if (value == null) {
          continue;
        }
        if (singlePosition < 0) {
          singlePosition = i;
          singleValue = value;
        } else {
          if (values == null) {
            values = new Object[keys.size()];
            values[singlePosition] = singleValue;
          }
          values[i] = value;
        }
      }
      if (values != null) {
        OwnValues own = new OwnValues(values);
        String id = idsByOwnValues.get(own);
        if (id == null) {
          id = join(span, keys);
          idsByOwnValues.put(own, id);
        }
        return id;
      }
      if (singlePosition >= 0) {
        // By the value's own equality: a byte[] value never matches (identity) and is joined
        // each time, which still gives the right id.
        Map<Object, String> ids = idsBySingleValue.get(singlePosition);
        String id = ids.get(singleValue);
        if (id == null) {
          id = join(span, keys);
          ids.put(singleValue, id);
        }
        return id;
      }
      return resourceOnlyId;
    }
  }

  /** Values by key position, as a map key: compared as arrays, without a list's iterators. */
  private static final class OwnValues {
    private final Object[] values;
    private final int hash;

    OwnValues(Object[] values) {
      this.values = values;
      this.hash = Arrays.deepHashCode(values);
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof OwnValues that && Arrays.deepEquals(values, that.values);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }

  private static String join(SpanRecord span, List<String> keys) {
    return join(span.attributes(), span.resource().attributes(), keys);
  }

  /** Each key's value, the span's own first, else its resource's. */
  private static String join(Attributes own, Attributes resource, List<String> keys) {
    StringBuilder id = new StringBuilder();
    for (String key : keys) {
      Object value = own.get(key);
      if (value == null) {
        value = resource.get(key);
      }
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
