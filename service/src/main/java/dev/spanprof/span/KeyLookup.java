package dev.spanprof.span;

import java.util.List;

/**
 * A fixed list of attribute keys, found in a key list once rather than searched for in every
 * span: the spans of one instrumentation share their {@link Attributes.Keys}, which remember
 * where this lookup's keys are ({@link Attributes#positionsOf}).
 */
final class KeyLookup {

  /** The key is not among the attributes. */
  static final int ABSENT = -1;
  /** The key occurs more than once: {@link Attributes#get} decides, as it skips empty values. */
  static final int REPEATED = -2;

  private final String[] names;

  /** A lookup of {@code names}, which must be distinct. */
  KeyLookup(List<String> names) {
    if (names.stream().distinct().count() != names.size()) {
      throw new IllegalArgumentException("keys named twice: " + names);
    }
    this.names = names.toArray(String[]::new);
  }

  int size() {
    return names.length;
  }

  String name(int key) {
    return names[key];
  }

  /** The index of {@code name} in this lookup; it must be one of its keys. */
  int indexOf(String name) {
    for (int i = 0; i < names.length; i++) {
      if (names[i].equals(name)) {
        return i;
      }
    }
    throw new IllegalArgumentException("not a key of this lookup: " + name);
  }

  /** Per key of this lookup, its position in {@code keyNames}, or ABSENT, or REPEATED. */
  int[] positionsIn(String[] keyNames) {
    int[] positions = new int[names.length];
    for (int key = 0; key < names.length; key++) {
      int position = ABSENT;
      for (int i = 0; i < keyNames.length; i++) {
        if (keyNames[i].equals(names[key])) {
          position = position == ABSENT ? i : REPEATED;
        }
      }
      positions[key] = position;
    }
    return positions;
  }
}
