package dev.spanprof.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class MemoryGuardTest {

  private final AtomicLong now = new AtomicLong();
  private final AtomicInteger fullCollections = new AtomicInteger();
  /** A heap of 1 000 bytes, limit 80 %: over once a collection leaves more than 800. */
  private final MemoryGuard guard =
      new MemoryGuard(1000, 80, now::get, fullCollections::incrementAndGet);

  @Test
  void afterCollection_aboveTheLimit_overUntilOneLeavesItBelow() {
    assertThat(guard.isOver()).isFalse();
    guard.afterCollection(800);
    assertThat(guard.isOver()).as("at the limit").isFalse();

    guard.afterCollection(801);
    assertThat(guard.isOver()).isTrue();
    assertThat(guard.refusal()).startsWith("spanprof's heap is 80.1 % full after collection");

    guard.afterCollection(400);
    assertThat(guard.isOver()).isFalse();
  }

  @Test
  void recheck_whileOver_asksForAFullCollectionEveryFewSeconds_neverWhileBelow() {
    guard.recheck();
    assertThat(fullCollections).as("below the limit").hasValue(0);

    guard.afterCollection(900);
    advance(Duration.ofSeconds(MemoryGuard.RECHECK_SECONDS).minusNanos(1));
    guard.recheck();
    assertThat(fullCollections).hasValue(0);
    advance(Duration.ofNanos(1));
    guard.recheck();
    guard.recheck();
    assertThat(fullCollections).hasValue(1);
    advance(Duration.ofSeconds(MemoryGuard.RECHECK_SECONDS));
    guard.recheck();
    assertThat(fullCollections).hasValue(2);

    guard.afterCollection(100);
    advance(Duration.ofSeconds(MemoryGuard.RECHECK_SECONDS));
    guard.recheck();
    assertThat(fullCollections).hasValue(2);
  }

  private void advance(Duration duration) {
    now.addAndGet(duration.toNanos());
  }
}
