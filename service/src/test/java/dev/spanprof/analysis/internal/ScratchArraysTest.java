package dev.spanprof.analysis.internal;


import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ScratchArraysTest {

  @Test
  void reset_givesTheSameArraysInTakingOrder_zeroedOverWhatIsAsked_orAsLeft() {
    ScratchArrays arrays = new ScratchArrays();
    long[] firstLongs = arrays.longs(4);
    long[] secondLongs = arrays.unclearedLongs(2);
    int[] firstInts = arrays.ints(4);
    int[] secondInts = arrays.unclearedInts(4);
    double[] doubles = arrays.doubles(2);
    boolean[] booleans = arrays.unclearedBooleans(2);
    firstLongs[3] = 7;
    secondLongs[0] = 6;
    secondInts[0] = 9;
    doubles[1] = 0.5;
    booleans[0] = true;

    arrays.reset();

    assertThat(arrays.longs(4)).isSameAs(firstLongs).containsExactly(0, 0, 0, 0);
    assertThat(arrays.unclearedLongs(2)).isSameAs(secondLongs).containsExactly(6, 0);
    assertThat(arrays.ints(3)).isSameAs(firstInts);
    // Taken uncleared before, zeroed now: what was left is gone.
    assertThat(arrays.ints(4)).isSameAs(secondInts).containsExactly(0, 0, 0, 0);
    assertThat(arrays.unclearedDoubles(2)).isSameAs(doubles).containsExactly(0.0, 0.5);
    assertThat(arrays.booleans(2)).isSameAs(booleans).containsExactly(false, false);
  }

  @Test
  void take_longerThanKept_replacesAShortArray_butNeverKeepsOnePastTheBound() {
    ScratchArrays arrays = new ScratchArrays();
    int[] small = arrays.ints(2);
    arrays.reset();

    int[] grown = arrays.ints(8);
    arrays.reset();

    assertThat(grown).isNotSameAs(small).hasSize(8);
    assertThat(arrays.ints(8)).isSameAs(grown);
    arrays.reset();
    int[] huge = arrays.ints(ScratchArrays.MAX_REUSED_LENGTH + 1);
    arrays.reset();
    assertThat(arrays.ints(ScratchArrays.MAX_REUSED_LENGTH + 1)).isNotSameAs(huge);
    arrays.reset();
    assertThat(arrays.ints(8)).isSameAs(grown);
  }
}
