package dev.spanprof.span.store;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * Where spans keep their encoded bytes while spanprof holds them: large arrays ({@link Slab}s)
 * used again and again, instead of an array per span. Spans wait seconds for their trace, long
 * enough for the collector to promote them; an array per span then fills the old generation
 * with garbage that only full collections reclaim. Slabs instead stay allocated, are written
 * over once every span in them is released, and cost the collector nothing per span.
 *
 * <p>At most {@code maxBytes} are allocated, in slabs of 1/64 of it (between 4 KiB and 1 MiB),
 * and kept once allocated. When every slab is in use, and for spans larger than a quarter of a
 * slab, a span gets an array of its own, as before: the store never refuses a span. So memory is
 * bounded by the span buffers' own limits plus the store's size; a span that outlives its
 * neighbours keeps its slab from being written over, within that size.
 *
 * <p>A request's walk places its spans through one {@link Writer}; slabs partly filled go back
 * to the store for the next walk. The bytes the enrichment appends to analysed spans have a
 * writer of their own ({@link #appendWriter()}) and slabs of their own: they wait only to be
 * forwarded, where a received span waits for its trace too, and a slab is written over only
 * once its longest-held bytes are released. Shared, each slab of appended bytes would be held
 * seconds longer by received spans placed after them (under a flat-out load, a store sized for
 * the buffers' spans then filled up and most spans got arrays of their own).
 */
public final class SpanStore {

  private static final int MIN_SLAB_BYTES = 4 * 1024;
  private static final int MAX_SLAB_BYTES = 1024 * 1024;

  private final int slabBytes;
  private final int maxSlabs;
  private final ArrayDeque<Slab> free = new ArrayDeque<>();
  /**
   * Partly filled slabs, each with the hold of the writer that will place bytes in it next: for
   * received spans, and for appended bytes.
   */
  private final ArrayDeque<Slab> openForSpans = new ArrayDeque<>();
  private final ArrayDeque<Slab> openForAppended = new ArrayDeque<>();
  /** Every slab allocated, in use or free. */
  private final List<Slab> all = new ArrayList<>();
  /** Byte ranges given an array of their own: the store was used up, or they were too large. */
  private final LongAdder overflows = new LongAdder();

  private SpanStore(int slabBytes, int maxSlabs) {
    this.slabBytes = slabBytes;
    this.maxSlabs = maxSlabs;
  }

  /** A store of at most {@code maxBytes}; 0 keeps every span in an array of its own. */
  public static SpanStore ofSize(long maxBytes) {
    if (maxBytes < 0) {
      throw new IllegalArgumentException("maxBytes must not be negative, was " + maxBytes);
    }
    int slabBytes = (int) Math.max(MIN_SLAB_BYTES, Math.min(MAX_SLAB_BYTES, maxBytes / 64));
    return new SpanStore(slabBytes, (int) Math.min(Integer.MAX_VALUE, maxBytes / slabBytes));
  }

  /** A writer for one request's spans; {@link Writer#close() close} it once they are handed on. */
  public Writer writer() {
    return new Writer(openForSpans);
  }

  /**
   * A writer for bytes appended to spans already held, which wait only to be forwarded; {@link
   * Writer#close() close} it once they are handed on.
   */
  public Writer appendWriter() {
    return new Writer(openForAppended);
  }

  /** Bytes allocated in slabs so far: what the store holds on the heap, spans or not. */
  public synchronized long allocatedBytes() {
    return (long) all.size() * slabBytes;
  }

  /** Slabs in use: holding spans, or open for the next writer. */
  public synchronized int slabsInUse() {
    return all.size() - free.size();
  }

  /** Bytes of the slabs in use: what the store cannot give to the next writer's spans. */
  public long inUseBytes() {
    return (long) slabsInUse() * slabBytes;
  }

  /**
   * Byte ranges that got an array of their own so far, the store used up or the range larger
   * than a quarter of a slab: while it grows, the store is too small for what the buffers hold.
   */
  public long overflows() {
    return overflows.sum();
  }

  /**
   * Slabs holding the bytes of at least one span not yet released; with no request being
   * mapped, the slabs whose spans someone still holds.
   */
  public synchronized int slabsHoldingSpans() {
    int holding = 0;
    for (Slab slab : all) {
      int writerHolds = openForSpans.contains(slab) || openForAppended.contains(slab) ? 1 : 0;
      holding += slab.holds() > writerHolds ? 1 : 0;
    }
    return holding;
  }

  private synchronized Slab take(ArrayDeque<Slab> open) {
    Slab slab = open.pollLast();
    if (slab != null) {
      return slab;
    }
    slab = free.pollLast();
    if (slab == null) {
      if (all.size() == maxSlabs) {
        return null;
      }
      slab = new Slab(this, slabBytes);
      all.add(slab);
    }
    slab.retain(1);
    return slab;
  }

  private synchronized void putOpen(ArrayDeque<Slab> open, Slab slab) {
    open.addLast(slab);
  }

  synchronized void recycle(Slab slab) {
    slab.top = 0;
    free.addLast(slab);
  }

  /**
   * Places one request's spans, or the bytes appended to one trace's, each in the slab it holds,
   * one after the other. Used by one thread; each span placed takes one hold, which its holder
   * releases.
   */
  public final class Writer implements AutoCloseable {
    /** The store's partly filled slabs this writer continues, and leaves its own in. */
    private final ArrayDeque<Slab> open;
    private Slab slab;
    /** Slabs this writer moved on from, too full for a span, held until it closes. */
    private final ArrayDeque<Slab> filled = new ArrayDeque<>(2);
    private boolean exhausted;

    private Writer(ArrayDeque<Slab> open) {
      this.open = open;
    }

    /**
     * Copies {@code source[offset, offset + length)} into a slab and takes a hold on it for the
     * span: the span's bytes are then {@code slab().bytes} from the returned offset. Returns -1
     * when the span is too large for a slab or every slab is in use; the caller keeps the bytes
     * itself.
     */
    public int place(byte[] source, int offset, int length) {
      int at = reserve(length);
      if (at >= 0) {
        System.arraycopy(source, offset, slab.bytes, at, length);
      }
      return at;
    }

    /**
     * Reserves {@code length} bytes in a slab for the caller to write, {@code slab().bytes()}
     * from the returned offset, and takes a hold on it as {@link #place} does. Returns -1 when the
     * bytes are too many for a slab or every slab is in use; the caller keeps the bytes itself.
     */
    public int reserve(int length) {
      if (exhausted || length > slabBytes / 4) {
        overflows.increment();
        return -1;
      }
      while (slab == null || slab.top + length > slabBytes) {
        if (slab != null) {
          filled.add(slab);
        }
        slab = take(open);
        if (slab == null) {
          exhausted = true;
          overflows.increment();
          return -1;
        }
      }
      int at = slab.top;
      slab.top = at + length;
      slab.retain(1);
      return at;
    }

    /** The slab the last span was placed in or reserved from. */
    public Slab slab() {
      return slab;
    }

    /**
     * Gives up the writer's holds: the spans placed are with their holders now. A slab with
     * room left goes back to the store for the next writer.
     */
    @Override
    public void close() {
      // A slab moved on from is not offered again, even with room left: each open slab is
      // tried at most once, so a writer never cycles through slabs too full for its spans.
      for (Slab full : filled) {
        full.release(1);
      }
      filled.clear();
      if (slab != null) {
        if (slabBytes - slab.top >= slabBytes / 8) {
          putOpen(open, slab);
        } else {
          slab.release(1);
        }
        slab = null;
      }
    }
  }
}
