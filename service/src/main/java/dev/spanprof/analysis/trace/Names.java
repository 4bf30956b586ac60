package dev.spanprof.analysis.trace;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Small dense ids for the distinct names of one trace. */
final class Names<T> {

  /**
   * Past this many names the map and list are replaced rather than cleared: clearing passes over
   * the map's whole table, and neither shrinks, so one trace of many names would leave them large
   * for every trace after it.
   */
  private static final int MAX_KEPT_NAMES = 64;

  private Map<T, Integer> ids = new HashMap<>();
  private List<T> names = new ArrayList<>();

  int index(T name) {
    Integer id = ids.get(name);
    if (id == null) {
      id = names.size();
      ids.put(name, id);
      names.add(name);
    }
    return id;
  }

  T name(int index) {
    return names.get(index);
  }

  /** Every name, by index. */
  List<T> copyOfNames() {
    return List.copyOf(names);
  }

  int size() {
    return names.size();
  }

  void clear() {
    if (names.size() > MAX_KEPT_NAMES) {
      ids = new HashMap<>();
      names = new ArrayList<>();
    } else {
      ids.clear();
      names.clear();
    }
  }
}
