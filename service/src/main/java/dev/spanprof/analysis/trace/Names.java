package dev.spanprof.analysis.trace;

import dev.spanprof.analysis.internal.ScratchArrays;
import dev.spanprof.analysis.internal.StampedSlots;
import java.util.Arrays;
import java.util.List;

/** Small dense ids for the distinct names of one trace. */
final class Names<T> {
  /** Past this many slots a table is dropped when cleared, so a huge trace's is not kept. */
  private static final int MAX_KEPT_SLOTS = 2 * ScratchArrays.MAX_REUSED_LENGTH;

  // Open addressing, linear probing. The names are stamped slots: clearing is a new
  // generation, not a pass over the table.
  private StampedSlots<T> slotNames = new StampedSlots<>(16);
  private int[] slotIds = new int[16];
  /** The names by id, at [0, size): an array, as {@link #name} is asked once per span and row. */
  private Object[] names = new Object[8];
  private int size;
  /**
   * The name asked for last and its id: consecutive spans mostly share their pool, service,
   * state and category, and the mapping hands out the very same instances for them.
   */
  private T lastName;
  private int lastId;

  int index(T name) {
    if (name == lastName) {
      return lastId;
    }
    lastName = name;
    lastId = indexInTable(name);
    return lastId;
  }

  private int indexInTable(T name) {
    int mask = slotIds.length - 1;
    for (int slot = spread(name.hashCode()) & mask; ; slot = (slot + 1) & mask) {
      T candidate = slotNames.get(slot);
      if (candidate == null) {
        int id = size;
        if (id == names.length) {
          names = Arrays.copyOf(names, 2 * id);
        }
        names[size++] = name;
        if (2 * size > slotIds.length) {
          rehash(2 * slotIds.length);
        } else {
          occupy(slot, name, id);
        }
        return id;
      }
      if (candidate == name || candidate.equals(name)) {
        return slotIds[slot];
      }
    }
  }

  @SuppressWarnings("unchecked") // only names of T are stored
  T name(int index) {
    return (T) names[index];
  }

  /** Every name, by index. */
  @SuppressWarnings("unchecked") // only names of T are stored
  List<T> copyOfNames() {
    return (List<T>) List.of(Arrays.copyOf(names, size));
  }

  int size() {
    return size;
  }

  void clear() {
    // The names stay in the array until overwritten: it is the thread's, like the slots.
    size = 0;
    lastName = null;
    if (slotIds.length > MAX_KEPT_SLOTS) {
      names = new Object[8];
      slotNames = new StampedSlots<>(16);
      slotIds = new int[16];
    } else {
      slotNames.clear();
    }
  }

  private void occupy(int slot, T name, int id) {
    slotNames.set(slot, name);
    slotIds[slot] = id;
  }

  /** Places every name of this trace in a table of {@code slots} slots. */
  private void rehash(int slots) {
    slotNames = new StampedSlots<>(slots);
    slotIds = new int[slots];
    int mask = slots - 1;
    for (int id = 0; id < size; id++) {
      T name = name(id);
      int slot = spread(name.hashCode()) & mask;
      while (slotNames.get(slot) != null) {
        slot = (slot + 1) & mask;
      }
      occupy(slot, name, id);
    }
  }

  private static int spread(int hash) {
    return hash ^ (hash >>> 16);
  }
}
