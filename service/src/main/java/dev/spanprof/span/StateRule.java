package dev.spanprof.span;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One state rule: when a span matches every condition given, its state is {@code state}, or, when
 * no state is given, the value of the first matching attribute (semantics.md §1: attribute
 * {@code spanprof.state} present → its value).
 *
 * @param attributes the span (or its resource) has one of these attributes; empty: no condition
 * @param value that attribute's value, as text, equals this; null: any value
 * @param kinds the span kind is one of these; empty: any kind
 * @param namePattern the span name matches this (whole name); null: any name
 * @param state the state to assign; null: the matching attribute's value
 */
public record StateRule(
    List<String> attributes, String value, Set<SpanKind> kinds, Pattern namePattern, String state) {

  public StateRule {
    attributes = List.copyOf(attributes);
    kinds = Set.copyOf(kinds);
    if (state == null && attributes.isEmpty()) {
      throw new IllegalArgumentException(
          "a rule without a state must name the attribute whose value is the state");
    }
  }

  /** The rules of semantics.md §1, in order (the fallback state is not a rule). */
  public static List<StateRule> defaults() {
    Set<SpanKind> outgoing = Set.of(SpanKind.CLIENT, SpanKind.PRODUCER);
    return List.of(
        new StateRule(List.of("spanprof.state"), null, Set.of(), null, null),
        new StateRule(List.of("db.system", "db.system.name"), null, Set.of(), null, "wait.db"),
        new StateRule(List.of("messaging.system"), null, outgoing, null, "wait.messaging"),
        new StateRule(List.of(), null, outgoing, null, "wait.net"));
  }

  /**
   * The state this rule gives {@code span}, or null when it does not match. Attribute {@code i}
   * of this rule is the mapping's key {@code keys[i]}, whose value {@code values} gives.
   */
  String match(SpanRecord span, int[] keys, SpanMapping.SpanValues values) {
    if (!kinds.isEmpty() && !kinds.contains(span.kind())) {
      return null;
    }
    if (namePattern != null && !namePattern.matcher(span.name()).matches()) {
      return null;
    }
    if (attributes.isEmpty()) {
      return state;
    }
    for (int key : keys) {
      Object found = values.value(key);
      if (found != null && (value == null || value.equals(SpanMapping.text(found)))) {
        return state != null ? state : SpanMapping.text(found);
      }
    }
    return null;
  }

  @Override
  public boolean equals(Object other) {
    // Pattern has identity equality; compare rules by the pattern's source instead.
    return other instanceof StateRule that
        && attributes.equals(that.attributes)
        && Objects.equals(value, that.value)
        && kinds.equals(that.kinds)
        && Objects.equals(patternText(), that.patternText())
        && Objects.equals(state, that.state);
  }

  @Override
  public int hashCode() {
    return Objects.hash(attributes, value, kinds, patternText(), state);
  }

  private String patternText() {
    return namePattern == null ? null : namePattern.pattern();
  }
}
