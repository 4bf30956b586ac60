package dev.spanprof.ingest.kafka;

import java.util.ArrayList;
import java.util.List;

/**
 * What a commit's metadata tells a partition's next owner, besides the offset.
 *
 * <p><b>Custody</b>: which consumer built the windows from which records: runs of offsets, each
 * from its start to the next one's (the last to the committed offset), with the client id of the
 * consumer that analysed them. The next owner rebuilds the windows from the runs whose consumer
 * has left the group (shut down or crashed) and leaves those of consumers still in it, which keep
 * theirs: so the fleet counts each trace once whether a partition moved in a rebalance, after a
 * crash, or everything restarted.
 *
 * <p><b>Done above</b>: the records above the committed offset whose spans were all forwarded
 * when it was committed; the next owner counts their spans, forwarded once more, as replayed.
 *
 * <p>Encoded {@code spanprof2:START@CLIENT|START@CLIENT;RUN,RUN}, offsets in base 36, done runs
 * relative to the committed offset as {@code start+length}. At most {@link #MAX_CUSTODY} runs of
 * custody (the oldest go first; their records count as nobody's) and {@link #MAX_CHARS}
 * characters, within the 4 096 a broker keeps by default: past that later done runs are left
 * out, and their spans, if forwarded again, go uncounted.
 */
final class CommitMetadata {

  static final int MAX_CHARS = 3_000;
  static final int MAX_CUSTODY = 16;
  private static final String PREFIX = "spanprof2:";

  /** Records from {@code startOffset} on (to the next run's start) were analysed by {@code holder}. */
  record Custody(long startOffset, String holder) {}

  private final long committedOffset;
  private final List<Custody> custody;
  /** Pairs: the start of each done run (relative to the committed offset) and its length. */
  private final long[] doneRuns;

  private CommitMetadata(long committedOffset, List<Custody> custody, long[] doneRuns) {
    this.committedOffset = committedOffset;
    this.custody = custody;
    this.doneRuns = doneRuns;
  }

  static CommitMetadata none(long committedOffset) {
    return new CommitMetadata(committedOffset, List.of(), new long[0]);
  }

  static String encode(long committedOffset, List<Custody> custody, List<Long> doneOffsets) {
    StringBuilder metadata = new StringBuilder(PREFIX);
    List<Custody> kept = custody.subList(Math.max(0, custody.size() - MAX_CUSTODY), custody.size());
    for (int i = 0; i < kept.size(); i++) {
      metadata.append(i == 0 ? "" : "|").append(Long.toString(kept.get(i).startOffset(), 36))
          .append('@').append(kept.get(i).holder());
    }
    metadata.append(';');
    int runsFrom = metadata.length();
    int i = 0;
    while (i < doneOffsets.size()) {
      long start = doneOffsets.get(i);
      int j = i + 1;
      while (j < doneOffsets.size() && doneOffsets.get(j) == start + (j - i)) {
        j++;
      }
      String run = Long.toString(start - committedOffset, 36) + "+" + Long.toString(j - i, 36);
      if (metadata.length() + run.length() + 1 > MAX_CHARS) {
        break;
      }
      metadata.append(metadata.length() == runsFrom ? "" : ",").append(run);
      i = j;
    }
    return metadata.toString();
  }

  /** What {@code metadata}, committed at {@code committedOffset}, says; nothing for another's. */
  static CommitMetadata decode(long committedOffset, String metadata) {
    if (metadata == null || !metadata.startsWith(PREFIX) || metadata.indexOf(';') < 0) {
      return none(committedOffset);
    }
    try {
      String body = metadata.substring(PREFIX.length());
      int semicolon = body.indexOf(';');
      List<Custody> custody = new ArrayList<>();
      if (semicolon > 0) {
        for (String run : body.substring(0, semicolon).split("\\|")) {
          int at = run.indexOf('@');
          custody.add(new Custody(Long.parseLong(run.substring(0, at), 36),
              run.substring(at + 1)));
        }
      }
      List<Long> runs = new ArrayList<>();
      String done = body.substring(semicolon + 1);
      if (!done.isEmpty()) {
        for (String run : done.split(",")) {
          int plus = run.indexOf('+');
          runs.add(Long.parseLong(run.substring(0, plus), 36));
          runs.add(Long.parseLong(run.substring(plus + 1), 36));
        }
      }
      return new CommitMetadata(committedOffset, List.copyOf(custody),
          runs.stream().mapToLong(Long::longValue).toArray());
    } catch (RuntimeException notOurs) {
      return none(committedOffset); // another writer's metadata: nothing known
    }
  }

  /** Who built the windows from which records, oldest first; empty when unknown. */
  List<Custody> custody() {
    return custody;
  }

  /** Whether the record at {@code offset} was done (forwarded) when this was committed. */
  boolean doneAbove(long offset) {
    long relative = offset - committedOffset;
    for (int i = 0; i < doneRuns.length; i += 2) {
      if (relative >= doneRuns[i] && relative < doneRuns[i] + doneRuns[i + 1]) {
        return true;
      }
    }
    return false;
  }
}
