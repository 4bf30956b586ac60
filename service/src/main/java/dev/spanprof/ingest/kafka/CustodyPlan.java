package dev.spanprof.ingest.kafka;

import dev.spanprof.ingest.kafka.CommitMetadata.Custody;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What a partition's new owner reads again to rebuild the windows, and the custody it commits
 * ({@link CommitMetadata}): the runs of records before the committed offset whose consumer is
 * gone are rebuilt (from the replay's start at the earliest) and become its own as they are read
 * again; the runs of consumers still in the group stay theirs.
 */
final class CustodyPlan {

  /** Records {@code [start, end)}, analysed by {@code holder}; to rebuild from {@code from}. */
  private record Run(long start, long end, String holder, long from) {
    boolean rebuilt() {
      return from < end;
    }
  }

  private final List<Run> runs;
  private final long committedOffset;
  private final String self;
  private final boolean ownerBeforeStays;

  private CustodyPlan(List<Run> runs, long committedOffset, String self,
      boolean ownerBeforeStays) {
    this.runs = runs;
    this.committedOffset = committedOffset;
    this.self = self;
    this.ownerBeforeStays = ownerBeforeStays;
  }

  /**
   * @param committedOffset where the records read before end: where the group's last commit
   *     left the partition when it is assigned (-1: nowhere), or where its owner has read to
   * @param previous the custody that commit named, or the owner's now (empty: unknown, so
   *     nobody's)
   * @param replayFrom the first offset within the replay window
   * @param members the client ids of the group's consumers now
   * @param self this consumer's client id
   */
  static CustodyPlan of(long committedOffset, List<Custody> previous, long replayFrom,
      Set<String> members, String self) {
    List<Run> runs = new ArrayList<>();
    boolean ownerBeforeStays = false;
    if (committedOffset >= 0) {
      List<Custody> known = previous.isEmpty() ? List.of(new Custody(0, "")) : previous;
      for (int i = 0; i < known.size(); i++) {
        Custody run = known.get(i);
        long end = i + 1 < known.size() ? known.get(i + 1).startOffset() : committedOffset;
        if (end > run.startOffset()) {
          boolean theirs = members.contains(run.holder()) || run.holder().equals(self);
          runs.add(new Run(run.startOffset(), end, run.holder(),
              theirs ? end : Math.max(run.startOffset(), replayFrom)));
        }
        ownerBeforeStays = i == known.size() - 1 && members.contains(run.holder());
      }
    }
    return new CustodyPlan(List.copyOf(runs), Math.max(0, committedOffset), self,
        ownerBeforeStays);
  }

  /**
   * Whether the consumer that committed last (the partition's owner before) is still in the
   * group: it gave the partition up in a rebalance, and keeps the windows it built.
   */
  boolean ownerBeforeStays() {
    return ownerBeforeStays;
  }

  /** The ranges of offsets to read again, {@code [from, to)}, ascending. */
  List<long[]> rebuild() {
    return runs.stream().filter(Run::rebuilt).map(run -> new long[] {run.from(), run.end()})
        .toList();
  }

  /** Where reading starts: the first record to rebuild from, or -1 when there is none. */
  long replayStart() {
    return runs.stream().filter(Run::rebuilt).mapToLong(Run::from).findFirst().orElse(-1);
  }

  boolean rebuilds(long offset) {
    for (Run run : runs) {
      if (run.rebuilt() && offset >= run.from() && offset < run.end()) {
        return true;
      }
    }
    return false;
  }

  /**
   * Who holds the windows from which records, the records before {@code replayedTo} read again:
   * a run not yet rebuilt (given up in a rebalance halfway) stays its gone consumer's, for the
   * next owner to rebuild.
   */
  List<Custody> custody(long replayedTo) {
    List<Custody> custody = new ArrayList<>();
    for (Run run : runs) {
      if (!run.rebuilt()) {
        add(custody, new Custody(run.start(), run.holder()));
      } else if (replayedTo >= run.end()) {
        add(custody, new Custody(run.start(), self));
      } else if (replayedTo <= run.from()) {
        add(custody, new Custody(run.start(), run.holder()));
      } else {
        add(custody, new Custody(run.start(), self));
        add(custody, new Custody(replayedTo, run.holder()));
      }
    }
    add(custody, new Custody(committedOffset, self));
    return custody;
  }

  /** Appends {@code run}, merged into the last when they have one holder. */
  private static void add(List<Custody> custody, Custody run) {
    if (custody.isEmpty() || !custody.get(custody.size() - 1).holder().equals(run.holder())) {
      custody.add(run);
    }
  }
}
