package dev.spanprof.analysis.internal;

import java.util.Arrays;

/**
 * A binary heap of distinct indices in {@code [0, capacity)} with removal of any member, best
 * first by an {@link Order}: what a sweep needs of an ordered set, without boxing an index or
 * allocating a tree node per insertion.
 */
public final class IndexHeap {

  /** A strict total order on indices: {@code before(a, b)} when a is better than b. */
  @FunctionalInterface
  public interface Order {
    boolean before(int a, int b);
  }

  private final Order order;
  private final int[] heap;
  /** Each index's position in the heap, or -1 when absent. */
  private final int[] position;
  private int size;

  public IndexHeap(int capacity, Order order) {
    this(new int[capacity], new int[capacity], capacity, order);
  }

  /** A heap in the caller's arrays, each at least {@code capacity} long (reused scratch). */
  public IndexHeap(int[] heap, int[] position, int capacity, Order order) {
    this.order = order;
    this.heap = heap;
    this.position = position;
    Arrays.fill(position, 0, capacity, -1);
  }

  public boolean isEmpty() {
    return size == 0;
  }

  public int size() {
    return size;
  }

  /** The best index; the heap must not be empty. */
  public int first() {
    return heap[0];
  }

  /** Adds {@code index}; nothing when it is already present. */
  public void add(int index) {
    if (position[index] >= 0) {
      return;
    }
    heap[size] = index;
    position[index] = size;
    up(size++);
  }

  /** Removes {@code index}; nothing when it is absent. */
  public void remove(int index) {
    int at = position[index];
    if (at < 0) {
      return;
    }
    position[index] = -1;
    int last = heap[--size];
    if (at == size) {
      return;
    }
    heap[at] = last;
    position[last] = at;
    down(at);
    up(at);
  }

  private void up(int at) {
    int moving = heap[at];
    while (at > 0) {
      int parent = (at - 1) >>> 1;
      if (!order.before(moving, heap[parent])) {
        break;
      }
      place(heap[parent], at);
      at = parent;
    }
    place(moving, at);
  }

  private void down(int at) {
    int moving = heap[at];
    while (true) {
      int child = 2 * at + 1;
      if (child >= size) {
        break;
      }
      if (child + 1 < size && order.before(heap[child + 1], heap[child])) {
        child++;
      }
      if (!order.before(heap[child], moving)) {
        break;
      }
      place(heap[child], at);
      at = child;
    }
    place(moving, at);
  }

  private void place(int index, int at) {
    heap[at] = index;
    position[index] = at;
  }
}
