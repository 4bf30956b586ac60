package dev.spanprof.span.store;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * One array of a {@link SpanStore}: the encoded bytes of many spans, one after the other. It goes
 * back to its store, to be written over, when the last of them is released.
 *
 * <p>Each holder of a span placed here (the assembly and analysis, a forwarding queue) takes a
 * hold and releases it when done with the span's bytes; a writer that may still place spans here
 * holds it too. Holds are counted per slab, not per span, so a span costs no object of its own.
 */
public final class Slab {

  final byte[] bytes;
  private final SpanStore store;
  /** Spans' holds not yet released, plus one while a writer may place spans here. */
  private final AtomicInteger holds = new AtomicInteger();
  /** Where the next span goes; only the writer holding the slab touches it. */
  int top;

  Slab(SpanStore store, int size) {
    this.store = store;
    this.bytes = new byte[size];
  }

  /**
   * The slab's array, for the writer of a range {@link SpanStore.Writer#reserve reserved} in it
   * and for the holders of spans placed in it, each to read its own range only.
   */
  public byte[] bytes() {
    return bytes;
  }

  void retain(int count) {
    holds.addAndGet(count);
  }

  void release(int count) {
    int left = holds.addAndGet(-count);
    if (left == 0) {
      store.recycle(this);
    } else if (left < 0) {
      throw new IllegalStateException("a slab was released " + -left + " times more than held");
    }
  }

  int holds() {
    return holds.get();
  }

  /**
   * Takes one hold for each of {@code holders} on the slab holding its span's bytes ({@code
   * slabOf}, null for bytes in an array of their own): a new holder of those spans.
   */
  public static <T> void retain(List<T> holders, Function<T, Slab> slabOf) {
    change(holders, slabOf, 1);
  }

  /** Releases what {@link #retain(List, Function)} took: the holders are done with the bytes. */
  public static <T> void release(List<T> holders, Function<T, Slab> slabOf) {
    change(holders, slabOf, -1);
  }

  /** One atomic update per run of spans in the same slab: a trace's spans mostly share one. */
  private static <T> void change(List<T> holders, Function<T, Slab> slabOf, int sign) {
    Slab run = null;
    int count = 0;
    for (int i = 0, n = holders.size(); i < n; i++) {
      Slab slab = slabOf.apply(holders.get(i));
      if (slab != run) {
        apply(run, count * sign);
        run = slab;
        count = 0;
      }
      count++;
    }
    apply(run, count * sign);
  }

  private static void apply(Slab slab, int count) {
    if (slab == null || count == 0) {
      return;
    }
    if (count > 0) {
      slab.retain(count);
    } else {
      slab.release(-count);
    }
  }
}
