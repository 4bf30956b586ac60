package dev.spanprof.ingest.kafka;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * One assigned partition: the records polled and not yet taken (while the pipeline has no room),
 * the records taken and not yet done, in offset order, and so the offset it may commit: that of
 * the first record not done, or past the last taken. Its poll thread owns it; the threads that
 * analyse and forward only tell a ticket it is done.
 */
final class PartitionProgress {

  private final ArrayDeque<ConsumerRecord<byte[], byte[]>> backlog = new ArrayDeque<>();
  private final ArrayDeque<RecordTicket> pending = new ArrayDeque<>();
  /** Records read again to rebuild the windows, whose analysis may not have begun yet. */
  private final ArrayDeque<RecordTicket> rebuilding = new ArrayDeque<>();
  /** Records before it were read before this consumer read them (-1: none). */
  private long readAgainBelow;
  private CustodyPlan plan;
  private final CommitMetadata previous;
  private final boolean ownerBeforeStays;
  /** Past the last record taken; -1 before the first, when nothing was committed. */
  private long nextOffset;
  private long committed;
  private String committedMetadata = "";
  private boolean paused;
  /** Past the last record read again to rebuild the windows. */
  private long replayedTo;
  /** Given up: no span of it begins its analysis here any more; this object's lock. */
  private boolean givenUp;
  private final IntConsumer onAbandoned;
  private volatile boolean awaited;

  /**
   * @param committedOffset where the group's last commit left the partition, -1 if nowhere
   * @param plan what is read again to rebuild the windows, and the custody to commit
   * @param previous what that commit's metadata said
   * @param onAbandoned told of each span given up with the partition before its analysis
   */
  PartitionProgress(long committedOffset, CustodyPlan plan, CommitMetadata previous,
      IntConsumer onAbandoned) {
    this.onAbandoned = onAbandoned;
    this.ownerBeforeStays = plan.ownerBeforeStays();
    this.readAgainBelow = committedOffset;
    this.nextOffset = committedOffset;
    this.committed = committedOffset;
    this.plan = plan;
    this.previous = previous;
    this.replayedTo = plan.replayStart();
  }

  ArrayDeque<ConsumerRecord<byte[], byte[]>> backlog() {
    return backlog;
  }

  boolean paused() {
    return paused;
  }

  void paused(boolean paused) {
    this.paused = paused;
  }

  /** Whether the record at {@code offset} was committed before this consumer read it. */
  boolean readBefore(long offset) {
    return offset < readAgainBelow;
  }

  long readAgainBelow() {
    return readAgainBelow;
  }

  /**
   * Reads again what {@code plan} rebuilds, the records up to {@code end} read before: the
   * backlog goes, the partition's reader seeks to the plan's start.
   */
  void replan(CustodyPlan plan, long end) {
    this.plan = plan;
    this.readAgainBelow = end;
    this.replayedTo = plan.replayStart();
    rebuilding.clear();
    backlog.clear();
  }

  /** Whether the record at {@code offset}, read before, is read again to rebuild the windows. */
  boolean rebuildsWindows(long offset) {
    return plan.rebuilds(offset);
  }

  /** Whether its spans were forwarded already, by the owner before: read again, they are replayed. */
  boolean forwardedBefore(long offset) {
    return previous.doneAbove(offset);
  }

  /**
   * Whether the record was analysed and forwarded by the owner before, which gave the partition
   * up and stays in the group with its windows: nothing is left to do with it here.
   */
  boolean doneByOwnerBefore(long offset) {
    return ownerBeforeStays && previous.doneAbove(offset);
  }

  /** Whether {@code ticket}'s spans may begin their analysis: not once the partition is given up. */
  synchronized boolean begin(RecordTicket ticket) {
    if (givenUp) {
      return false;
    }
    ticket.begun = true;
    return true;
  }

  /** A span of {@code ticket} is not analysed here: its record is the next owner's to read. */
  synchronized void abandon(RecordTicket ticket) {
    ticket.begun = false;
    if (ticket.forwards()) {
      onAbandoned.accept(1); // an accepted span, accounted for as handed over
    }
    notifyAll();
  }

  /**
   * Gives the partition up: from now no span read from it begins its analysis here; those not
   * begun are read again by its next owner, from the first record not done.
   */
  synchronized void giveUp() {
    givenUp = true;
  }

  /** A record read before was passed over (a live consumer holds its windows, or invalid). */
  void readAgain(long offset) {
    replayedTo = offset + 1;
  }

  /** A record read before was taken again to rebuild the windows. */
  void rebuilt(RecordTicket ticket) {
    rebuilding.addLast(ticket);
    replayedTo = ticket.offset() + 1;
  }

  /**
   * Who holds the windows from which of the partition's records, to commit: this consumer's run
   * of records read again ends past the last it took; once the partition is given up, at the
   * first whose analysis had not begun (it is the next owner's to rebuild, with the rest of its
   * trace).
   */
  synchronized List<CommitMetadata.Custody> custody() {
    while (!rebuilding.isEmpty()
        && (rebuilding.peekFirst().begun || rebuilding.peekFirst().done())) {
      rebuilding.pollFirst();
    }
    boolean cut = givenUp && !rebuilding.isEmpty();
    return plan.custody(cut ? rebuilding.peekFirst().offset() : replayedTo);
  }

  /** A record taken (or skipped): it is done when its ticket is. */
  void taken(RecordTicket ticket) {
    pending.addLast(ticket);
    nextOffset = Math.max(nextOffset, ticket.offset() + 1);
  }

  /** The offset to commit: the first record not done, or past the last taken; -1: none yet. */
  long committable() {
    while (!pending.isEmpty() && pending.peekFirst().done()) {
      pending.pollFirst();
    }
    return pending.isEmpty() ? nextOffset : pending.peekFirst().offset();
  }

  /** The offsets above {@link #committable()} whose records are done, ascending. */
  List<Long> doneAbove() {
    List<Long> done = new ArrayList<>();
    for (RecordTicket ticket : pending) {
      if (ticket.done()) {
        done.add(ticket.offset());
      }
    }
    return done;
  }

  /** Whether {@code offset} with {@code metadata} says more than the last commit. */
  boolean changedSinceCommit(long offset, String metadata) {
    return offset != committed || !metadata.equals(committedMetadata);
  }

  void committed(long offset, String metadata) {
    committed = offset;
    committedMetadata = metadata;
  }

  /** Whether every record whose analysis began here is done (those not begun are given up). */
  boolean begunDone() {
    committable();
    for (RecordTicket ticket : pending) {
      if (ticket.begun && !ticket.done()) {
        return false;
      }
    }
    return true;
  }

  boolean allDone() {
    committable();
    return pending.isEmpty();
  }

  /**
   * After {@link #giveUp}, waits until every record whose analysis began is done (analysed and
   * forwarded), or {@code deadlineNanos} ({@link System#nanoTime}).
   *
   * @return whether they all are
   */
  boolean awaitBegunDone(long deadlineNanos) throws InterruptedException {
    awaited = true;
    try {
      synchronized (this) {
        while (!begunDone()) {
          long leftNanos = deadlineNanos - System.nanoTime();
          if (leftNanos <= 0) {
            return false;
          }
          wait(Math.max(1, leftNanos / 1_000_000));
        }
        return true;
      }
    } finally {
      awaited = false;
    }
  }

  /** A ticket of this partition is done: wakes a handover waiting for them. */
  void ticketDone() {
    if (awaited) {
      synchronized (this) {
        notifyAll();
      }
    }
  }
}
