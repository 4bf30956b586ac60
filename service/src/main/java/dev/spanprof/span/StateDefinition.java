package dev.spanprof.span;

import java.util.Objects;

/**
 * One row of the state table (semantics.md §1).
 *
 * @param name the state, e.g. {@code running}, {@code wait.db}
 * @param priority which state wins where spans overlap; higher wins
 * @param stateClass cpu, wait or idle
 * @param category the default category of spans in this state ({@code application}, {@code system})
 */
public record StateDefinition(String name, int priority, StateClass stateClass, String category) {

  public StateDefinition {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(stateClass, "stateClass");
    Objects.requireNonNull(category, "category");
  }
}
