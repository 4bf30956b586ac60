package dev.spanprof.ingest.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.ingest.kafka.CommitMetadata.Custody;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PartitionProgressTest {

  private final AtomicInteger abandoned = new AtomicInteger();

  @Test
  void commitsUpToTheFirstRecordNotDone() {
    PartitionProgress progress = progress(10);
    RecordTicket first = taken(progress, 10, 2, 2);
    RecordTicket second = taken(progress, 11, 1, 2);
    RecordTicket third = taken(progress, 12, 1, 2);

    assertThat(progress.committable()).isEqualTo(10);
    steps(third, 2);
    steps(first, 3);
    assertThat(progress.committable()).as("one step of the first left").isEqualTo(10);
    assertThat(progress.doneAbove()).containsExactly(12L);

    steps(first, 1);
    assertThat(progress.committable()).isEqualTo(11);
    steps(second, 2);
    assertThat(progress.committable()).isEqualTo(13);
    assertThat(progress.allDone()).isTrue();
  }

  @Test
  void aSkippedRecord_isDoneAtOnce_andARecordOfNoSpansToo() {
    PartitionProgress progress = progress(-1);
    assertThat(progress.committable()).as("nothing read, nothing committed").isEqualTo(-1);

    RecordTicket invalid = new RecordTicket(40, 2, progress);
    invalid.skip();
    progress.taken(invalid);
    taken(progress, 41, 0, 2);

    assertThat(progress.committable()).isEqualTo(42);
  }

  @Test
  void recordsReadBefore_areRebuiltWhereTheirConsumerLeft_andDoneOnesCountAsReplayed() {
    CommitMetadata previous = CommitMetadata.decode(100, CommitMetadata.encode(100,
        List.of(new Custody(0, "alive"), new Custody(60, "gone")), List.of(102L)));
    PartitionProgress progress = new PartitionProgress(100,
        CustodyPlan.of(100, previous.custody(), 20, Set.of("alive"), "me"), previous,
        abandoned::addAndGet);

    assertThat(progress.readBefore(99)).isTrue();
    assertThat(progress.readBefore(100)).isFalse();
    assertThat(progress.rebuildsWindows(59)).as("a live consumer's").isFalse();
    assertThat(progress.rebuildsWindows(60)).isTrue();
    assertThat(progress.forwardedBefore(102)).isTrue();
    assertThat(progress.forwardedBefore(101)).isFalse();
    assertThat(progress.committable()).as("never below the committed offset").isEqualTo(100);
    assertThat(progress.custody()).as("nothing read again yet").containsExactly(
        new Custody(0, "alive"), new Custody(60, "gone"), new Custody(100, "me"));
    progress.readAgain(99);
    assertThat(progress.custody()).containsExactly(new Custody(0, "alive"), new Custody(60, "me"));
  }

  @Test
  void replanned_readsAgainBelowWhereItWas_andNeverCommitsBackwards() {
    PartitionProgress progress = progress(100);
    taken(progress, 100, 0, 2);
    taken(progress, 101, 0, 2);

    progress.replan(CustodyPlan.of(102, List.of(new Custody(0, "gone"), new Custody(100, "me")),
        40, Set.of("me"), "me"), 102);

    assertThat(progress.readBefore(101)).isTrue();
    assertThat(progress.rebuildsWindows(40)).isTrue();
    assertThat(progress.rebuildsWindows(100)).isFalse();
    assertThat(progress.committable()).isEqualTo(102);
    progress.readAgain(99);
    assertThat(progress.custody()).containsExactly(new Custody(0, "me"));
  }

  @Test
  void aRecordWhoseTraceFailedAnalysis_isDone() {
    PartitionProgress progress = progress(0);
    RecordTicket ticket = taken(progress, 0, 3, 2);

    ticket.stepDone();
    ticket.failed();

    assertThat(progress.committable()).isEqualTo(1);
  }

  @Test
  void givenUp_recordsNotBegun_areTheNextOwners_fromTheFirstOfThem() throws Exception {
    PartitionProgress progress = progress(0);
    RecordTicket analysed = taken(progress, 0, 1, 2);
    RecordTicket forwarding = taken(progress, 1, 1, 2);
    RecordTicket unanalysed = taken(progress, 2, 1, 2);
    RecordTicket after = taken(progress, 3, 1, 2);
    for (RecordTicket begun : List.of(analysed, forwarding, after)) {
      assertThat(begun.beginAnalysis()).isTrue();
      begun.stepDone();
    }
    analysed.stepDone();
    after.stepDone();

    progress.giveUp();
    assertThat(unanalysed.beginAnalysis()).as("its trace completes after").isFalse();
    unanalysed.abandon();
    Thread forwarder = new Thread(forwarding::stepDone);
    forwarder.start();
    boolean done = progress.awaitBegunDone(System.nanoTime() + 60_000_000_000L);
    forwarder.join();

    assertThat(done).isTrue();
    assertThat(progress.committable()).isEqualTo(2);
    assertThat(progress.doneAbove()).containsExactly(3L);
    assertThat(abandoned).hasValue(1);
  }

  @Test
  void givenUpMidRebuild_claimsTheRecordsReadAgainUpToTheFirstNotBegun() {
    CommitMetadata previous = CommitMetadata.decode(100,
        CommitMetadata.encode(100, List.of(new Custody(0, "gone")), List.of()));
    PartitionProgress progress = new PartitionProgress(100,
        CustodyPlan.of(100, previous.custody(), 0, Set.of("me"), "me"), previous,
        abandoned::addAndGet);
    RecordTicket first = RecordTicket.rebuilding(0, progress);
    first.spans(1);
    progress.rebuilt(first);
    RecordTicket second = RecordTicket.rebuilding(1, progress);
    second.spans(1);
    progress.rebuilt(second);

    assertThat(first.beginAnalysis()).isTrue();
    progress.giveUp();
    assertThat(second.beginAnalysis()).isFalse();
    second.abandon();

    assertThat(progress.custody()).containsExactly(new Custody(0, "me"), new Custody(1, "gone"),
        new Custody(100, "me"));
    assertThat(abandoned).as("spans read again were never accepted").hasValue(0);
  }

  @Test
  void awaitBegunDone_givesUpAtTheDeadline() throws Exception {
    PartitionProgress progress = progress(0);
    RecordTicket ticket = taken(progress, 0, 1, 1);
    assertThat(ticket.beginAnalysis()).isTrue();
    progress.giveUp();

    assertThat(progress.awaitBegunDone(System.nanoTime() + 1_000_000L)).isFalse();
    assertThat(progress.committable()).isZero();
  }

  @Test
  void recordsTheOwnerBeforeDone_andStaysWithItsWindows_areSkipped() {
    CommitMetadata previous = CommitMetadata.decode(50, CommitMetadata.encode(50,
        List.of(new Custody(0, "before")), List.of(52L)));
    PartitionProgress stays = new PartitionProgress(50,
        CustodyPlan.of(50, previous.custody(), 0, Set.of("before", "me"), "me"), previous,
        abandoned::addAndGet);
    PartitionProgress gone = new PartitionProgress(50,
        CustodyPlan.of(50, previous.custody(), 0, Set.of("me"), "me"), previous,
        abandoned::addAndGet);

    assertThat(stays.doneByOwnerBefore(52)).isTrue();
    assertThat(stays.doneByOwnerBefore(51)).isFalse();
    assertThat(gone.doneByOwnerBefore(52)).as("read again, forwarded again: replayed").isFalse();
    assertThat(gone.forwardedBefore(52)).isTrue();
  }

  private PartitionProgress progress(long committedOffset) {
    return new PartitionProgress(committedOffset,
        CustodyPlan.of(committedOffset, List.of(), 0, Set.of(), "me"),
        CommitMetadata.none(committedOffset), abandoned::addAndGet);
  }

  private static RecordTicket taken(PartitionProgress progress, long offset, int spans,
      int stepsPerSpan) {
    RecordTicket ticket = new RecordTicket(offset, stepsPerSpan, progress);
    ticket.spans(spans);
    progress.taken(ticket);
    return ticket;
  }

  private static void steps(RecordTicket ticket, int count) {
    for (int i = 0; i < count; i++) {
      ticket.stepDone();
    }
  }
}
