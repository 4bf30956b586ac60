package dev.spanprof.analysis.internal;


import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StampedSlotsTest {

  @Test
  void clear_emptiesEverySlot_andSlotsSetAfterwardHoldTheirNewValues() {
    StampedSlots<String> slots = new StampedSlots<>(4);
    slots.set(0, "a");
    slots.set(3, "b");

    assertThat(slots.get(0)).isEqualTo("a");
    assertThat(slots.get(1)).isNull();
    assertThat(slots.get(3)).isEqualTo("b");

    slots.clear();
    slots.set(3, "c");

    assertThat(slots.get(0)).isNull();
    assertThat(slots.get(3)).isEqualTo("c");
    slots.clear();
    slots.clear();
    assertThat(slots.get(3)).isNull();
  }
}
