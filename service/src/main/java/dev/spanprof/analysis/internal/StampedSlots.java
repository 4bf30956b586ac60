package dev.spanprof.analysis.internal;

import java.util.Arrays;

/**
 * A fixed number of slots, all emptied at once by {@link #clear} in constant time: a slot holds a
 * value only if it was set since the last clear, which a generation stamp per slot tells. For
 * tables filled per trace: the analysis's name tables, and the per-trace tables of distribution
 * series and ranking edges, where clearing hundreds of slots per trace cost more than the lookups
 * the table saved.
 *
 * <p>Not thread-safe; a holder keeps one per thread or uses it under its own lock. Values set
 * before a clear stay referenced until their slot is set again.
 */
public final class StampedSlots<T> {

  private final Object[] values;
  private final int[] stamps;
  private int generation = 1;

  public StampedSlots(int size) {
    this.values = new Object[size];
    this.stamps = new int[size];
  }

  /** Empties every slot. */
  public void clear() {
    generation++;
    if (generation == 0) {
      // After 2^32 clears the stamps come round again: start them over.
      Arrays.fill(stamps, 0);
      generation = 1;
    }
  }

  /** The value set in {@code slot} since the last clear, or null. */
  @SuppressWarnings("unchecked")
  public T get(int slot) {
    return stamps[slot] == generation ? (T) values[slot] : null;
  }

  public void set(int slot, T value) {
    values[slot] = value;
    stamps[slot] = generation;
  }
}
