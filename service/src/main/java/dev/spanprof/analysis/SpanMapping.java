package dev.spanprof.analysis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

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
   * Resource and pool ids for the spans of one analysis, building each distinct id once: a span's
   * id depends on its resource and on the few keys it names itself (often none, or a {@code
   * thread.id}). So the ids are remembered on the resource, which the spans of one request share:
   * the one of spans naming no key themselves, and a bounded number of those of spans that do, by
   * their values. A trace's spans come in blocks per resource, so the resource's ids are looked up
   * once per block. Not thread-safe (the remembered ids are).
   */
  public final class Ids {
    private SpanResource resource;
    private ResourceIds ids;

    private Ids() {}

    /** Equal to {@link SpanMapping#resourceId(SpanRecord)}. */
    public String resourceId(SpanRecord span) {
      return idsOf(span.resource()).resourceIds().id(span);
    }

    /** Equal to {@link SpanMapping#poolId(SpanRecord)}. */
    public String poolId(SpanRecord span) {
      return idsOf(span.resource()).poolIds().id(span);
    }

    private ResourceIds idsOf(SpanResource next) {
      if (next != resource) {
        resource = next;
        ids = resourceIds(next);
      }
      return ids;
    }
  }

  /** A fresh {@link Ids} for one analysis. */
  public Ids ids() {
    return new Ids();
  }

  /** The ids a resource's spans have under this mapping, remembered on the resource. */
  record ResourceIds(SpanMapping mapping, IdCache resourceIds, IdCache poolIds) {}

  private ResourceIds resourceIds(SpanResource resource) {
    ResourceIds ids = resource.mappedIds();
    if (ids == null || ids.mapping() != this) {
      ids = new ResourceIds(this, new IdCache(resourceKeys, resource.attributes()),
          new IdCache(poolKeys, resource.attributes()));
      resource.mappedIds(ids);
    }
    return ids;
  }

  /** The ids under one list of keys for the spans of one resource; safe for concurrent use. */
  static final class IdCache {
    /**
     * How many ids of spans naming keys themselves a resource remembers per key position (and
     * for several keys): enough for a request's threads; a sender naming a fresh value per span
     * gets its ids joined each time, without the memory.
     */
    private static final int MAX_REMEMBERED = 64;

    private final List<String> keys;
    /** The id of a span that names none of the keys itself. */
    private final String resourceOnlyId;
    /**
     * Per key position, the ids of spans naming that key alone themselves, by its value: the
     * usual case (a thread id), found without building a key.
     */
    private final List<Map<Object, String>> idsBySingleValue;
    private final Map<OwnValues, String> idsByOwnValues = new ConcurrentHashMap<>();

    IdCache(List<String> keys, Attributes resourceAttributes) {
      this.keys = keys;
      this.resourceOnlyId = join(Attributes.empty(), resourceAttributes, keys);
      List<Map<Object, String>> maps = new ArrayList<>(keys.size());
      for (int i = 0; i < keys.size(); i++) {
        maps.add(new ConcurrentHashMap<>());
      }
      this.idsBySingleValue = maps;
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
        return id(idsByOwnValues, new OwnValues(values), span);
      }
      if (singlePosition >= 0) {
        // By the value's own equality: a byte[] value never matches (identity) and is joined
        // each time, which still gives the right id.
        return id(idsBySingleValue.get(singlePosition), singleValue, span);
      }
      return resourceOnlyId;
    }

    private <K> String id(Map<K, String> ids, K key, SpanRecord span) {
      String id = ids.get(key);
      if (id == null) {
        id = join(span, keys);
        if (ids.size() < MAX_REMEMBERED) {
          ids.put(key, id);
        }
      }
      return id;
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
