package dev.spanprof.ingest.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.ingest.kafka.CommitMetadata.Custody;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CustodyPlanTest {

  private static final List<Custody> TWO_OWNERS =
      List.of(new Custody(0, "a"), new Custody(170, "b"));

  @Test
  void afterACrash_onlyTheCrashedConsumersRecordsAreRebuilt() {
    CustodyPlan plan = CustodyPlan.of(900, TWO_OWNERS, 0, Set.of("a", "c"), "c");

    assertThat(plan.rebuild()).singleElement().isEqualTo(new long[] {170, 900});
    assertThat(plan.replayStart()).isEqualTo(170);
    assertThat(plan.custody(900)).containsExactly(new Custody(0, "a"), new Custody(170, "c"));
  }

  @Test
  void afterEveryoneRestarted_everythingInTheWindowIsRebuilt() {
    CustodyPlan plan = CustodyPlan.of(900, TWO_OWNERS, 50, Set.of("d"), "d");

    assertThat(plan.rebuild()).containsExactly(new long[] {50, 170}, new long[] {170, 900});
    assertThat(plan.rebuilds(49)).isFalse();
    assertThat(plan.rebuilds(50)).isTrue();
    assertThat(plan.rebuilds(899)).isTrue();
    assertThat(plan.rebuilds(900)).isFalse();
    assertThat(plan.custody(900)).containsExactly(new Custody(0, "d"));
  }

  @Test
  void movedInARebalance_nothingIsRebuilt_theEarlierConsumerKeepsItsWindows() {
    CustodyPlan plan = CustodyPlan.of(900, TWO_OWNERS, 0, Set.of("a", "b", "c"), "c");

    assertThat(plan.rebuild()).isEmpty();
    assertThat(plan.replayStart()).isEqualTo(-1);
    assertThat(plan.custody(-1)).containsExactly(new Custody(0, "a"), new Custody(170, "b"),
        new Custody(900, "c"));
  }

  @Test
  void givenUpHalfwayThroughTheRebuild_theRestStaysTheGoneConsumers() {
    CustodyPlan plan = CustodyPlan.of(900, TWO_OWNERS, 0, Set.of("a", "c"), "c");

    assertThat(plan.custody(170)).containsExactly(new Custody(0, "a"), new Custody(170, "b"),
        new Custody(900, "c"));
    assertThat(plan.custody(500)).containsExactly(new Custody(0, "a"), new Custody(170, "c"),
        new Custody(500, "b"), new Custody(900, "c"));
  }

  @Test
  void aConsumerThatLeftAfterGivingUpThePartition_isRebuiltByItsOwner() {
    List<Custody> owned = List.of(new Custody(0, "gone"), new Custody(132, "me"));

    CustodyPlan plan = CustodyPlan.of(500, owned, 0, Set.of("me"), "me");

    assertThat(plan.rebuild()).singleElement().isEqualTo(new long[] {0, 132});
    assertThat(plan.custody(132)).containsExactly(new Custody(0, "me"));
  }

  @Test
  void unknownCustody_isNobodys_andNothingCommittedRebuildsNothing() {
    assertThat(CustodyPlan.of(300, List.of(), 100, Set.of("a"), "a").rebuild())
        .containsExactly(new long[] {100, 300});
    assertThat(CustodyPlan.of(-1, List.of(), 0, Set.of(), "a").rebuild()).isEmpty();
  }

  @Test
  void olderThanTheWindow_isNotRebuilt() {
    assertThat(CustodyPlan.of(900, TWO_OWNERS, 950, Set.of(), "c").rebuild()).isEmpty();
  }
}
