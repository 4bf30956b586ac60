package dev.spanprof.analysis.internal;


import static org.assertj.core.api.Assertions.assertThat;

import java.util.Comparator;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class IndexHeapTest {

  /** Random adds and removals, repeated ones included: always the ordered set's first. */
  @Test
  void indexHeap_randomAddsAndRemovals_firstIsTheOrderedSetsFirst() {
    Random random = new Random(3);
    int capacity = 50;
    long[] keys = random.longs(capacity, 0, 8).toArray();
    // Key descending, then index ascending: ties in the key like the sweep's equal candidates.
    Comparator<Integer> order = Comparator.<Integer>comparingLong(i -> -keys[i])
        .thenComparingInt(i -> i);
    IndexHeap heap = new IndexHeap(capacity, (a, b) -> order.compare(a, b) < 0);
    TreeSet<Integer> reference = new TreeSet<>(order);

    for (int step = 0; step < 5_000; step++) {
      int index = random.nextInt(capacity);
      if (random.nextBoolean()) {
        heap.add(index);
        reference.add(index);
      } else {
        heap.remove(index);
        reference.remove(index);
      }

      assertThat(heap.size()).as("step %d", step).isEqualTo(reference.size());
      assertThat(heap.isEmpty()).isEqualTo(reference.isEmpty());
      if (!reference.isEmpty()) {
        assertThat(heap.first()).as("step %d", step).isEqualTo(reference.first());
      }
    }
  }
}
