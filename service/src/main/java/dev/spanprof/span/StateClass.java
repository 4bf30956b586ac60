package dev.spanprof.span;

import java.util.Locale;

/** What a state means for a core: computing, waiting for something, or nothing at all. */
public enum StateClass {
  CPU,
  WAIT,
  IDLE;

  /** The configuration and label spelling: {@code cpu}, {@code wait}, {@code idle}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses a label; null when it is not one of cpu, wait, idle. */
  public static StateClass fromLabel(String label) {
    for (StateClass value : values()) {
      if (value.label().equals(label)) {
        return value;
      }
    }
    return null;
  }
}
