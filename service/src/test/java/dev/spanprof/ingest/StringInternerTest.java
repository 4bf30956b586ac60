package dev.spanprof.ingest;

import static java.nio.charset.StandardCharsets.UTF_8;
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

  @Test
  void internBytes_anyRangeOfEqualBytes_returnsTheInstanceOfTheString() {
    StringInterner interner = new StringInterner(10);
    String cart = interner.intern(new String("GET /cart"));
    byte[] body = "..GET /cart..GET /carts..GET /cart".getBytes(UTF_8);

    assertThat(interner.intern(body, 2, 9)).isSameAs(cart);
    assertThat(interner.intern(body, 25, 9)).isSameAs(cart);
    assertThat(interner.intern(body, 13, 10)).isEqualTo("GET /carts")
        .isSameAs(interner.intern(new String("GET /carts")));
    assertThat(interner.intern(body, 13, 9)).isSameAs(cart); // a prefix of a longer known name
    assertThat(interner.intern("ünï".getBytes(UTF_8), 0, 5)).isEqualTo("ünï");
  }

  @Test
  void internBytes_poolFull_decodesWithoutGrowing() {
    StringInterner interner = new StringInterner(1);
    byte[] a = "a".getBytes(UTF_8);
    byte[] b = "b".getBytes(UTF_8);
    String first = interner.intern(a, 0, 1);

    assertThat(interner.intern(b, 0, 1)).isEqualTo("b").isNotSameAs(interner.intern(b, 0, 1));
    assertThat(interner.intern(a, 0, 1)).isSameAs(first);
    assertThat(interner.size()).isEqualTo(1);
  }

  /** More keys than the cache has slots, so slots are shared: each answer is still its key's. */
  @Test
  void threadCache_manyKeysTwice_eachTheInternersInstance() {
    StringInterner interner = new StringInterner(10_000);
    StringInterner.ThreadCache cache = interner.threadCache();
    byte[][] keys = new byte[1_000][];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = ("..attribute.key." + i).getBytes(UTF_8);
    }

    for (int round = 0; round < 2; round++) {
      for (int i = 0; i < keys.length; i++) {
        String key = "attribute.key." + i;
        assertThat(cache.intern(keys[i], 2, keys[i].length - 2))
            .isEqualTo(key).isSameAs(interner.intern(key));
      }
    }
  }
}
