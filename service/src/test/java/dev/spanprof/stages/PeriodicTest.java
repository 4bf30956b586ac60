package dev.spanprof.stages;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PeriodicTest {

  private static final long SECOND = 1_000_000_000L;

  /** An aligned task runs at the next multiple of its interval, never at the one it is on. */
  @Test
  void nanosToNextMultiple_isTheTimeToTheNextBoundary() {
    assertThat(Periodic.nanosToNextMultiple(1_800_000_003L * SECOND, 6 * SECOND))
        .isEqualTo(3 * SECOND);
    assertThat(Periodic.nanosToNextMultiple(1_800_000_000L * SECOND, 6 * SECOND))
        .isEqualTo(6 * SECOND);
    assertThat(Periodic.nanosToNextMultiple(-1, 6 * SECOND)).isEqualTo(1);
  }
}
