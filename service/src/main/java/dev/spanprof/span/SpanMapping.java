package dev.spanprof.span;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
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
  /**
   * Every key the mapping reads, each once: a span's key list is resolved against it once per
   * shared key list, and a resource's values once per resource.
   */
  private final KeyLookup lookup;
  private final int[] resourceKeyIndexes;
  private final int[] poolKeyIndexes;
  /** Per rule, its attributes' indexes in {@link #lookup}. */
  private final int[][] ruleKeyIndexes;
  /** Every rule's attributes' indexes in {@link #lookup}, each once. */
  private final int[] allRuleKeyIndexes;
  /**
   * Whether no rule looks at the span name: then a span that has none of the rules' attributes
   * itself takes its state from its kind and its resource alone.
   */
  private final boolean rulesIgnoreNames;
  private final int categoryKey;
  private final int coresKey;
  private final int capacityKey;

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
    Set<String> keys = new LinkedHashSet<>();
    keys.addAll(this.resourceKeys);
    keys.addAll(this.poolKeys);
    this.rules.forEach(rule -> keys.addAll(rule.attributes()));
    keys.addAll(List.of(CATEGORY_ATTRIBUTE, CORES_ATTRIBUTE, CAPACITY_ATTRIBUTE));
    this.lookup = new KeyLookup(List.copyOf(keys));
    this.resourceKeyIndexes = indexes(this.resourceKeys);
    this.poolKeyIndexes = indexes(this.poolKeys);
    this.ruleKeyIndexes = this.rules.stream().map(rule -> indexes(rule.attributes()))
        .toArray(int[][]::new);
    this.allRuleKeyIndexes = Arrays.stream(ruleKeyIndexes).flatMapToInt(Arrays::stream)
        .distinct().toArray();
    this.rulesIgnoreNames = this.rules.stream().allMatch(rule -> rule.namePattern() == null);
    this.categoryKey = lookup.indexOf(CATEGORY_ATTRIBUTE);
    this.coresKey = lookup.indexOf(CORES_ATTRIBUTE);
    this.capacityKey = lookup.indexOf(CAPACITY_ATTRIBUTE);
  }

  private int[] indexes(List<String> keys) {
    return keys.stream().mapToInt(lookup::indexOf).toArray();
  }

  /** The defaults of semantics.md §1. */
  public static SpanMapping defaults() {
    return new SpanMapping(DEFAULT_RESOURCE_KEYS, DEFAULT_POOL_KEYS, StateRule.defaults(),
        DEFAULT_STATE, StateTable.of(StateTable.defaults()));
  }

  // The single-span derivations below say what each figure is, key by key; a Mapper gives the
  // same for many spans without searching each span's keys.

  /** The values of the present resource keys joined with '/'; "" when none is present. */
  public String resourceId(SpanRecord span) {
    return join(span, resourceKeys);
  }

  public String poolId(SpanRecord span) {
    return join(span, poolKeys);
  }

  /** The first matching rule's state, else the default state. */
  public String state(SpanRecord span) {
    return state(span, key -> span.attribute(lookup.name(key)));
  }

  private String state(SpanRecord span, SpanValues values) {
    for (int i = 0; i < rules.size(); i++) {
      String state = rules.get(i).match(span, ruleKeyIndexes[i], values);
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
    return category(span.attribute(CATEGORY_ATTRIBUTE), state);
  }

  private static String category(Object category, StateDefinition state) {
    return category != null ? text(category) : state.category();
  }

  /** {@code spanprof.cores}, default 1; NaN when present but not a number. */
  public double cores(SpanRecord span) {
    return cores(span.attribute(CORES_ATTRIBUTE));
  }

  private static double cores(Object cores) {
    return cores == null ? 1 : number(cores);
  }

  /** {@code spanprof.pool.capacity}; NaN when absent or not a number (not an allocation span). */
  public double capacity(SpanRecord span) {
    return capacity(span.attribute(CAPACITY_ATTRIBUTE));
  }

  private static double capacity(Object capacity) {
    return capacity == null ? Double.NaN : number(capacity);
  }

  /** A span's values of the mapping's keys, by their index in the mapping's {@link KeyLookup}. */
  @FunctionalInterface
  interface SpanValues {
    /** The span's own value, else its resource's; null when neither has one. */
    Object value(int key);
  }

  /**
   * The mapping of many spans, equal to the single-span derivations above, without a search per
   * key: a span's keys are found where its shared key list remembers them ({@link
   * Attributes#positionsOf}), and its resource's values and ids are remembered on the resource,
   * which the spans of one request share. The spans of a request, or of a trace, come in blocks
   * per resource, so the resource's are looked up once per block. Not thread-safe (what the
   * resources remember is): one per request at ingest, one per analysis.
   */
  public final class Mapper implements SpanValues {
    /** How many recent outcomes are kept for spans to share, a power of two. */
    private static final int RECENT_OUTCOMES = 16;

    private SpanRecord span;
    private Attributes own;
    private int[] ownPositions;
    private SpanResource resource;
    private ResourceMapping resourceMapping;
    /** Recent outcomes by hash: the spans of a request mostly share theirs. */
    private final MappedSpan[] recent = new MappedSpan[RECENT_OUTCOMES];

    private Mapper() {}

    /** What this mapping makes of {@code span}. */
    public MappedSpan mapped(SpanRecord span) {
      return mapped(span, span.attributes());
    }

    /**
     * What this mapping makes of {@code span}, whose own attributes are {@code ownAttributes}:
     * given rather than asked of the span, so that a span being built is not made to keep them.
     */
    MappedSpan mapped(SpanRecord span, Attributes ownAttributes) {
      at(span, ownAttributes);
      double capacity = SpanMapping.capacity(value(capacityKey));
      double cores = SpanMapping.cores(value(coresKey));
      String resourceId = resourceMapping.resourceIds().id(this);
      String poolId = resourceMapping.poolIds().id(this);
      String state = state();
      String category = SpanMapping.category(value(categoryKey), states.get(state));
      boolean namesSpanprofKeys = own.namesSpanprofKeys();
      int hash = resourceId.hashCode() * 31 + state.hashCode();
      int slot = (hash ^ hash >>> 16) & (RECENT_OUTCOMES - 1);
      MappedSpan known = recent[slot];
      if (known != null && known.sameAs(SpanMapping.this, resourceId, poolId, state, category,
          cores, capacity, namesSpanprofKeys)) {
        return known;
      }
      MappedSpan mapped = new MappedSpan(SpanMapping.this, resourceId, poolId, state, category,
          cores, capacity, namesSpanprofKeys);
      recent[slot] = mapped;
      return mapped;
    }

    private String state() {
      if (!rulesIgnoreNames || !noneOwn(allRuleKeyIndexes)) {
        return SpanMapping.this.state(span, this);
      }
      // The rules read only the resource's values and the kind: the resource remembers the
      // state per kind. Threads racing to fill a slot store the same state; a String is safe to
      // hand over without a lock.
      String[] states = resourceMapping.statesByKind();
      int kind = span.kind().ordinal();
      String state = states[kind];
      if (state == null) {
        state = SpanMapping.this.state(span, this);
        states[kind] = state;
      }
      return state;
    }

    /** Whether the current span's own attributes hold none of {@code keys}. */
    private boolean noneOwn(int[] keys) {
      for (int key : keys) {
        if (ownPositions[key] != KeyLookup.ABSENT) {
          return false;
        }
      }
      return true;
    }

    private void at(SpanRecord next, Attributes ownAttributes) {
      span = next;
      own = ownAttributes;
      ownPositions = ownAttributes.positionsOf(lookup);
      if (next.resource() != resource) {
        resource = next.resource();
        resourceMapping = resourceMapping(resource);
      }
    }

    /** The current span's own value of {@code key}, or null. */
    Object own(int key) {
      int position = ownPositions[key];
      if (position >= 0) {
        return own.valueAt(position);
      }
      return position == KeyLookup.ABSENT ? null : own.get(lookup.name(key));
    }

    @Override
    public Object value(int key) {
      Object value = own(key);
      return value != null ? value : resourceMapping.values()[key];
    }
  }

  /** A fresh {@link Mapper}, for one request or one analysis. */
  public Mapper mapper() {
    return new Mapper();
  }

  /**
   * What a resource's attributes give under this mapping, remembered on the resource: its value
   * of every key, the ids of its spans, and by span kind the state of its spans that have none of
   * the rules' attributes themselves (filled as spans ask; used only when no rule reads the name).
   */
  record ResourceMapping(SpanMapping mapping, Object[] values, IdCache resourceIds, IdCache poolIds,
      String[] statesByKind) {}

  private ResourceMapping resourceMapping(SpanResource resource) {
    ResourceMapping known = resource.mapping();
    if (known == null || known.mapping() != this) {
      Object[] values = new Object[lookup.size()];
      for (int key = 0; key < values.length; key++) {
        values[key] = resource.attributes().get(lookup.name(key));
      }
      known = new ResourceMapping(this, values,
          new IdCache(resourceKeys, resourceKeyIndexes, resource.attributes()),
          new IdCache(poolKeys, poolKeyIndexes, resource.attributes()),
          new String[SpanKind.values().length]);
      resource.mapping(known);
    }
    return known;
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
    /** The keys' indexes in the mapping's {@link KeyLookup}. */
    private final int[] keyIndexes;
    /** The id of a span that names none of the keys itself. */
    private final String resourceOnlyId;
    /**
     * Per key position, the ids of spans naming that key alone themselves, by its value: the
     * usual case (a thread id), found without building a key.
     */
    private final List<Map<Object, String>> idsBySingleValue;
    private final Map<OwnValues, String> idsByOwnValues = new ConcurrentHashMap<>();

    IdCache(List<String> keys, int[] keyIndexes, Attributes resourceAttributes) {
      this.keys = keys;
      this.keyIndexes = keyIndexes;
      this.resourceOnlyId = join(Attributes.empty(), resourceAttributes, keys);
      List<Map<Object, String>> maps = new ArrayList<>(keys.size());
      for (int i = 0; i < keys.size(); i++) {
        maps.add(new ConcurrentHashMap<>());
      }
      this.idsBySingleValue = maps;
    }

    /** The id of the mapper's current span. */
    String id(Mapper mapper) {
      int singlePosition = -1;
      Object singleValue = null;
      Object[] values = null;
      for (int i = 0; i < keyIndexes.length; i++) {
        Object value = mapper.own(keyIndexes[i]);
        if (value == null) {
          continue;
        }
        if (singlePosition < 0) {
          singlePosition = i;
          singleValue = value;
        } else {
          if (values == null) {
            values = new Object[keyIndexes.length];
            values[singlePosition] = singleValue;
          }
          values[i] = value;
        }
      }
      if (values != null) {
        return id(idsByOwnValues, new OwnValues(values), mapper);
      }
      if (singlePosition >= 0) {
        // By the value's own equality: a byte[] value never matches (identity) and is joined
        // each time, which still gives the right id.
        return id(idsBySingleValue.get(singlePosition), singleValue, mapper);
      }
      return resourceOnlyId;
    }

    private <K> String id(Map<K, String> ids, K key, Mapper mapper) {
      String id = ids.get(key);
      if (id == null) {
        id = join(mapper.own, mapper.resource.attributes(), keys);
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
