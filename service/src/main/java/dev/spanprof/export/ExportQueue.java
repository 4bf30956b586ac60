package dev.spanprof.export;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Spans waiting to be sent, at most {@code capacity}, and the batches being sent. The
 * {@link Forwarder} keeps the queue from overflowing by holding the analysis back
 * ({@link #hasRoomFor}); should more come all the same (pass-through requests racing for the last
 * room), the oldest make room and are reported as dropped. A taken batch stays counted (in
 * flight) until {@link #done}, so the count never misses spans between leaving the queue and
 * being resolved.
 */
final class ExportQueue {

  private final int capacity;
  /** What becomes of the entries dropped to make room, and of those cleared at shutdown. */
  private final Consumer<List<ExportEntry>> dropped;
  private final Consumer<List<ExportEntry>> cleared;
  private final ArrayDeque<ExportEntry> entries = new ArrayDeque<>();
  private boolean closed;
  private int inFlight;

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
  synchronized int offer(List<ExportEntry> added) {
    List<ExportEntry> removed = List.of();
    for (ExportEntry entry : added) {
      if (entries.size() == capacity) {
        if (removed.isEmpty()) {
          removed = new ArrayList<>();
        }
        removed.add(entries.removeFirst());
      }
      entries.addLast(entry);
    }
    notifyAll();
    if (!removed.isEmpty()) {
      dropped.accept(removed);
    }
    return removed.size();
  }

  /**
   * Waits for a first entry, then up to {@code flushNanos} more for {@code max} of them; returns
   * what there is (empty when closed and empty, or when nothing came within {@code idleNanos}).
   */
  synchronized List<ExportEntry> take(int max, long flushNanos, long idleNanos)
      throws InterruptedException {
    long idleDeadline = System.nanoTime() + idleNanos;
    while (entries.isEmpty() && !closed) {
      long left = idleDeadline - System.nanoTime();
      if (left <= 0) {
        return List.of();
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    long flushDeadline = System.nanoTime() + flushNanos;
    while (entries.size() < max && !closed) {
      long left = flushDeadline - System.nanoTime();
      if (left <= 0) {
        break;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    List<ExportEntry> batch = new ArrayList<>(Math.min(max, entries.size()));
    while (batch.size() < max && !entries.isEmpty()) {
      batch.add(entries.removeFirst());
    }
    inFlight += batch.size();
    return batch;
  }

  /** A taken batch of {@code spans} is resolved (sent or given up). */
  synchronized void done(int spans) {
    inFlight -= spans;
    notifyAll();
  }

  /** Waits until nothing is waiting or in flight; false when the timeout passed first. */
  synchronized boolean awaitEmpty(long timeoutNanos) throws InterruptedException {
    long deadline = System.nanoTime() + timeoutNanos;
    while (!entries.isEmpty() || inFlight > 0) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return true;
  }

  /** Stops waiting: takers get what is there at once. */
  synchronized void close() {
    closed = true;
    notifyAll();
  }

  /**
   * Whether a trace of {@code traceSpans}, and the {@code queuedSpans} still to come before it,
   * fit beside the spans waiting without the oldest being dropped. A trace larger than the queue
   * never fits: the configuration keeps {@code max-spans-per-trace} within it.
   */
  synchronized boolean hasRoomFor(long queuedSpans, int traceSpans) {
    return entries.size() + queuedSpans + traceSpans <= capacity;
  }

  /** Spans waiting or in flight. */
  synchronized int size() {
    return entries.size() + inFlight;
  }

  /** Spans waiting, not counting the batches in flight. */
  synchronized int waiting() {
    return entries.size();
  }

  /**
   * Empties the queue, releasing its spans' bytes, and forgets the batches in flight (their
   * takers release them); returns how many spans that was.
   */
  synchronized int clear() {
    int size = entries.size() + inFlight;
    cleared.accept(new ArrayList<>(entries));
    entries.clear();
    inFlight = 0;
    return size;
  }
}
