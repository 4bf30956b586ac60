package dev.spanprof.span;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Priority, class and category of every state. A state the table does not name gets priority 10,
 * class wait, category application (semantics.md §1).
 */
public final class StateTable {

  public static final String APPLICATION = "application";
  public static final String SYSTEM = "system";

  private static final int UNLISTED_PRIORITY = 10;

  private final Map<String, StateDefinition> states;

  private StateTable(Map<String, StateDefinition> states) {
    this.states = states;
  }

  /** The table of semantics.md §1. */
  public static List<StateDefinition> defaults() {
    return List.of(
        new StateDefinition("running", 100, StateClass.CPU, APPLICATION),
        new StateDefinition("staging", 60, StateClass.WAIT, SYSTEM),
        new StateDefinition("wait.db", 50, StateClass.WAIT, APPLICATION),
        new StateDefinition("wait.net", 50, StateClass.WAIT, APPLICATION),
        new StateDefinition("wait.messaging", 50, StateClass.WAIT, APPLICATION),
        new StateDefinition("idle", 0, StateClass.IDLE, APPLICATION));
  }

  /** A table of {@code definitions}; a state named twice is an error. */
  public static StateTable of(List<StateDefinition> definitions) {
    Map<String, StateDefinition> states = new LinkedHashMap<>();
    for (StateDefinition definition : definitions) {
      if (states.putIfAbsent(definition.name(), definition) != null) {
        throw new IllegalArgumentException("state '" + definition.name() + "' is defined twice");
      }
    }
    return new StateTable(states);
  }

  public StateDefinition get(String state) {
    StateDefinition definition = states.get(state);
    return definition != null
        ? definition
        : new StateDefinition(state, UNLISTED_PRIORITY, StateClass.WAIT, APPLICATION);
  }
}
