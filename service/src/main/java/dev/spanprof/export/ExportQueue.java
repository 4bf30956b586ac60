package dev.spanprof.export;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * Spans waiting to be sent, at most {@code capacity}, and the batches being sent. The
 * {@link Forwarder} keeps the queue from overflowing by holding the analysis back
 * ({@link #hasRoomFor}); should more come all the same (pass-through requests racing for the last
 * room), the oldest make room and are reported as dropped. A taken batch stays counted (in
 * flight) until {@link #done}, so the count never misses spans between leaving the queue and
 * being resolved.
 *
 * <p>One taker at a time gathers a batch while the others wait their turn, and an offer wakes
 * the gatherer only once it has what it waits for: woken at every offered trace, as a monitor's
 * {@code notifyAll} woke them, the four senders switched 169 times a second at 10 000 spans/s
 * and took a fifth more CPU ({@code bench/fixed-rate.sh}). Nothing times out while idle: only an
 * offer or {@link #close} wakes a taker.
 */
final class ExportQueue {

  private final int capacity;
  /** What becomes of the entries dropped to make room, and of those cleared at shutdown. */
  private final Consumer<List<ExportEntry>> dropped;
  private final Consumer<List<ExportEntry>> cleared;
  private final ArrayDeque<ExportEntry> entries = new ArrayDeque<>();
  private final ReentrantLock lock = new ReentrantLock();
  /** Signalled when the gatherer has the entries it waits for, or at close. */
  private final Condition arrived = lock.newCondition();
  /** Signalled when the gatherer leaves with its batch: the next taker gathers. */
  private final Condition turn = lock.newCondition();
  /** Signalled when a batch is resolved, for {@link #awaitEmpty}. */
  private final Condition resolved = lock.newCondition();
  private boolean closed;
  private int inFlight;
  private boolean gathering;
  /** How many entries the gatherer waits for; 0 when none waits. */
  private int wanted;

  ExportQueue(int capacity, Consumer<List<ExportEntry>> dropped,
      Consumer<List<ExportEntry>> cleared) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
    }
    this.capacity = capacity;
    this.dropped = dropped;
    this.cleared = cleared;
  }

  /**
   * Adds the entries; returns how many of the oldest were dropped to make room, handed to
   * {@code dropped} (which releases their bytes).
   */
  int offer(List<ExportEntry> added) {
    List<ExportEntry> removed = List.of();
    lock.lock();
    try {
      for (ExportEntry entry : added) {
        if (entries.size() == capacity) {
          if (removed.isEmpty()) {
            removed = new ArrayList<>();
          }
          removed.add(entries.removeFirst());
        }
        entries.addLast(entry);
      }
      if (wanted > 0 && entries.size() >= wanted) {
        arrived.signal();
      }
    } finally {
      lock.unlock();
    }
    if (!removed.isEmpty()) {
      dropped.accept(removed);
    }
    return removed.size();
  }

  /**
   * Waits for a first entry, then up to {@code flushNanos} more for {@code max} of them; returns
   * what there is (empty when closed and empty).
   */
  List<ExportEntry> take(int max, long flushNanos) throws InterruptedException {
    lock.lock();
    try {
      while (gathering && !closed) {
        turn.await();
      }
      gathering = true;
      try {
        wanted = 1;
        while (entries.isEmpty() && !closed) {
          arrived.await();
        }
        wanted = max;
        for (long left = flushNanos; entries.size() < max && !closed && left > 0; ) {
          left = arrived.awaitNanos(left);
        }
        List<ExportEntry> batch = new ArrayList<>(Math.min(max, entries.size()));
        while (batch.size() < max && !entries.isEmpty()) {
          batch.add(entries.removeFirst());
        }
        inFlight += batch.size();
        return batch;
      } finally {
        gathering = false;
        wanted = 0;
        turn.signal();
      }
    } finally {
      lock.unlock();
    }
  }

  /** A taken batch of {@code spans} is resolved (sent or given up). */
  void done(int spans) {
    lock.lock();
    try {
      inFlight -= spans;
      resolved.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Waits until nothing is waiting or in flight; false when the timeout passed first. */
  boolean awaitEmpty(long timeoutNanos) throws InterruptedException {
    lock.lock();
    try {
      long left = timeoutNanos;
      while (!entries.isEmpty() || inFlight > 0) {
        if (left <= 0) {
          return false;
        }
        left = resolved.awaitNanos(left);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Stops waiting: takers get what is there at once. */
  void close() {
    lock.lock();
    try {
      closed = true;
      arrived.signalAll();
      turn.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Whether a trace of {@code traceSpans}, and the {@code queuedSpans} still to come before it,
   * fit beside the spans waiting without the oldest being dropped. A trace larger than the queue
   * never fits: the configuration keeps {@code max-spans-per-trace} within it.
   */
  boolean hasRoomFor(long queuedSpans, int traceSpans) {
    lock.lock();
    try {
      return entries.size() + queuedSpans + traceSpans <= capacity;
    } finally {
      lock.unlock();
    }
  }

  /** Spans waiting or in flight. */
  int size() {
    lock.lock();
    try {
      return entries.size() + inFlight;
    } finally {
      lock.unlock();
    }
  }

  /** Spans waiting, not counting the batches in flight. */
  int waiting() {
    lock.lock();
    try {
      return entries.size();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Empties the queue, releasing its spans' bytes, and forgets the batches in flight (their
   * takers release them); returns how many spans that was.
   */
  int clear() {
    lock.lock();
    try {
      int size = entries.size() + inFlight;
      cleared.accept(new ArrayList<>(entries));
      entries.clear();
      inFlight = 0;
      return size;
    } finally {
      lock.unlock();
    }
  }
}
