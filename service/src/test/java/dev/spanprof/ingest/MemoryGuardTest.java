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
    guard.afterCollection(800, true);
    assertThat(guard.isOver()).as("at the limit").isFalse();

    guard.afterCollection(801, true);
    assertThat(guard.isOver()).isTrue();
    assertThat(guard.refusal()).startsWith("spanprof's heap is 80.1 % full after collection");

    guard.afterCollection(400, true);
    assertThat(guard.isOver()).isFalse();
  }

  @Test
  void recheck_whileOver_asksForAFullCollectionEveryFewSeconds_neverWhileBelow() {
    guard.recheck();
    assertThat(fullCollections).as("below the limit").hasValue(0);

    guard.afterCollection(900, true);
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

    guard.afterCollection(100, true);
    advance(Duration.ofSeconds(MemoryGuard.RECHECK_SECONDS));
    guard.recheck();
    assertThat(fullCollections).hasValue(2);
  }

  @Test
  void youngCollectionAboveTheLimit_takesSpans_theWholeHeapCollectionAfterItDecides() {
    guard.afterCollection(900, false);
    assertThat(guard.isOver()).as("a young collection's figure counts garbage").isFalse();
    guard.afterCollection(500, true);
    assertThat(guard.isOver()).isFalse();
    guard.recheck();
    assertThat(fullCollections).as("decided: none asked for").hasValue(0);

    guard.afterCollection(900, false);
    guard.afterCollection(850, true);
    assertThat(guard.isOver()).isTrue();
  }

  @Test
  void youngCollectionAboveTheLimit_asksForOneFullCollection_takesItsFigureIfNoneComes() {
    guard.afterCollection(900, false);
    guard.recheck();
    guard.recheck();
    assertThat(fullCollections).hasValue(1);
    assertThat(guard.isOver()).isFalse();

    advance(Duration.ofSeconds(MemoryGuard.RECHECK_SECONDS).minusNanos(1));
    guard.recheck();
    assertThat(guard.isOver()).isFalse();
    advance(Duration.ofNanos(1));
    guard.recheck();
    assertThat(guard.isOver()).as("no whole-heap collection came to decide").isTrue();
    assertThat(guard.usedAfterCollection()).isEqualTo(900);
  }

  @Test
  void youngCollection_whileOver_overUntilOneLeavesTheHeapBelow() {
    guard.afterCollection(900, true);
    guard.afterCollection(850, false);
    assertThat(guard.isOver()).isTrue();
    guard.afterCollection(700, false);
    assertThat(guard.isOver()).isFalse();

    guard.afterCollection(900, false);
    guard.afterCollection(700, false);
    advance(Duration.ofSeconds(MemoryGuard.RECHECK_SECONDS));
    guard.recheck();
    assertThat(guard.isOver()).as("the doubt was settled below the limit").isFalse();
  }

  private void advance(Duration duration) {
    now.addAndGet(duration.toNanos());
  }
}
