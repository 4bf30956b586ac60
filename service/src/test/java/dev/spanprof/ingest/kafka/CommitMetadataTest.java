package dev.spanprof.ingest.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.ingest.kafka.CommitMetadata.Custody;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class CommitMetadataTest {

  @Test
  void custodyAndDoneRuns_comeBackAsTheyWere() {
    List<Custody> custody = List.of(new Custody(0, "spanprof-a"), new Custody(170, "spanprof-b"));
    String metadata = CommitMetadata.encode(1_000,
        custody, List.of(1_003L, 1_004L, 1_005L, 1_009L, 2_000L));

    CommitMetadata decoded = CommitMetadata.decode(1_000, metadata);

    assertThat(metadata).isEqualTo("spanprof2:0@spanprof-a|4q@spanprof-b;3+3,9+1,rs+1");
    assertThat(decoded.custody()).isEqualTo(custody);
    assertThat(LongStream.rangeClosed(995, 2_005).filter(decoded::doneAbove).boxed().toList())
        .containsExactly(1_003L, 1_004L, 1_005L, 1_009L, 2_000L);
  }

  @Test
  void nothingDone_andNoCustody_encodeToo() {
    CommitMetadata decoded = CommitMetadata.decode(5, CommitMetadata.encode(5, List.of(),
        List.of()));

    assertThat(decoded.custody()).isEmpty();
    assertThat(decoded.doneAbove(5)).isFalse();
  }

  @Test
  void beyondWhatABrokerKeeps_theOldestCustodyAndTheLaterDoneRunsAreLeftOut() {
    List<Custody> custody = IntStream.range(0, 40)
        .mapToObj(i -> new Custody(i * 100L, "spanprof-" + i)).toList();
    List<Long> everyOther = LongStream.range(0, 5_000).map(i -> 2 * i).boxed().toList();

    String metadata = CommitMetadata.encode(0, custody, everyOther);
    CommitMetadata decoded = CommitMetadata.decode(0, metadata);

    assertThat(metadata.length()).isLessThanOrEqualTo(CommitMetadata.MAX_CHARS);
    assertThat(decoded.custody()).hasSize(CommitMetadata.MAX_CUSTODY)
        .endsWith(new Custody(3_900, "spanprof-39"));
    assertThat(decoded.doneAbove(0)).isTrue();
    assertThat(decoded.doneAbove(1)).isFalse();
    assertThat(decoded.doneAbove(9_998)).isFalse();
  }

  @Test
  void anotherWritersMetadata_saysNothing() {
    for (String metadata : new String[] {null, "", "checkpoint-7", "spanprof2:zz", "spanprof2:;+",
        "spanprof1:3+1"}) {
      CommitMetadata decoded = CommitMetadata.decode(0, metadata);
      assertThat(decoded.custody()).isEmpty();
      assertThat(decoded.doneAbove(3)).isFalse();
    }
  }
}
