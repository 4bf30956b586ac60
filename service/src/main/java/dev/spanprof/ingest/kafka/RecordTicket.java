package dev.spanprof.ingest.kafka;

import dev.spanprof.ingest.LogRecordOrigin;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One record read from a partition, and how many steps of its spans are left: each span is
 * analysed and, with a next hop, forwarded (sent or given up). Done when none is left; its
 * partition commits past it once it and every record before it are done. A record read again to
 * rebuild the windows is analysed only, never forwarded.
 */
final class RecordTicket implements LogRecordOrigin {

  private final long offset;
  private final int stepsPerSpan;
  private final PartitionProgress progress;
  private final boolean forwards;
  /** One step until the record's spans are known: not done before it is taken. */
  private final AtomicInteger stepsLeft = new AtomicInteger(1);
  private int spans;
  /** Whether its spans' analysis began, before the partition was given up; its progress's lock. */
  boolean begun;

  RecordTicket(long offset, int stepsPerSpan, PartitionProgress progress) {
    this(offset, stepsPerSpan, progress, true);
  }

  /** A record read again only to rebuild the windows: analysed, not forwarded. */
  static RecordTicket rebuilding(long offset, PartitionProgress progress) {
    return new RecordTicket(offset, 1, progress, false);
  }

  private RecordTicket(long offset, int stepsPerSpan, PartitionProgress progress,
      boolean forwards) {
    this.offset = offset;
    this.stepsPerSpan = stepsPerSpan;
    this.progress = progress;
    this.forwards = forwards;
  }

  long offset() {
    return offset;
  }

  /** The record's valid spans; 0 until told, or when it was skipped. */
  int spans() {
    return spans;
  }

  boolean done() {
    return stepsLeft.get() == 0;
  }

  /** The record held nothing to take (it was invalid): done at once. */
  void skip() {
    stepsLeft.set(0);
  }

  @Override
  public void spans(int count) {
    spans = count;
    stepsLeft.set(count * stepsPerSpan);
  }

  @Override
  public boolean forwards() {
    return forwards;
  }

  @Override
  public boolean beginAnalysis() {
    return progress.begin(this);
  }

  @Override
  public void abandon() {
    progress.abandon(this);
  }

  @Override
  public void stepDone() {
    if (stepsLeft.decrementAndGet() == 0) {
      progress.ticketDone();
    }
  }

  @Override
  public void failed() {
    if (stepsLeft.getAndSet(0) != 0) {
      progress.ticketDone();
    }
  }
}
