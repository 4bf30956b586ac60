package dev.spanprof.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StringInternerTest {

  @Test
  void intern_equalStrings_returnsOneInstance() {
    StringInterner interner = new StringInterner(10);
    String first = interner.intern(new String("GET /cart"));

    assertThat(interner.intern(new String("GET /cart"))).isSameAs(first);
  }

  @Test
  void intern_poolFull_returnsNewStringsUnsharedWithoutGrowing() {
    StringInterner interner = new StringInterner(2);
    interner.intern("a");
    interner.intern("b");
    String c = new String("c");

    assertThat(interner.intern(c)).isSameAs(c);
    assertThat(interner.intern(new String("c"))).isNotSameAs(c).isEqualTo("c");
    assertThat(interner.size()).isEqualTo(2);
    assertThat(interner.intern(new String("a"))).isSameAs(interner.intern("a"));
  }
}
