package dev.spanprof.analysis.trace;

import dev.spanprof.analysis.internal.ScratchArrays;
import java.util.Arrays;

/**
 * Time segments, each of an owner (the chosen span of a resource's elementary segment, or its
 * state), adjacent ones of the same owner merged.
 */
final class Segments {
  long[] from = new long[16];
  long[] to = new long[16];
  int[] owner = new int[16];
  int size;

  void clear() {
    size = 0;
    if (from.length > ScratchArrays.MAX_REUSED_LENGTH) {
      from = new long[16];
      to = new long[16];
      owner = new int[16];
    }
  }

  void add(long start, long end, int of) {
    if (size > 0 && owner[size - 1] == of && to[size - 1] == start) {
      to[size - 1] = end;
      return;
    }
    if (size == from.length) {
      from = Arrays.copyOf(from, size * 2);
      to = Arrays.copyOf(to, size * 2);
      owner = Arrays.copyOf(owner, size * 2);
    }
    from[size] = start;
    to[size] = end;
    owner[size] = of;
    size++;
  }
}
