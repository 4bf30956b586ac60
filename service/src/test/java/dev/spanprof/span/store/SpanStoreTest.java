package dev.spanprof.span.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spanprof.analysis.TestSpans;
import dev.spanprof.span.SpanRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SpanStoreTest {

  /** 64 slabs of 4 KiB; spans over 1 KiB get arrays of their own. */
  private final SpanStore store = SpanStore.ofSize(64 * 4096);

  @Test
  void placedSpans_keepTheirBytes_andShareASlab() {
    SpanStore.Writer writer = store.writer();
    SpanRecord first = place(writer, bytes(100, 1));
    SpanRecord second = place(writer, bytes(200, 2));
    writer.close();

    assertThat(first.slab()).isNotNull().isSameAs(second.slab());
    assertThat(first.copyOfEncoded()).isEqualTo(bytes(100, 1));
    assertThat(second.copyOfEncoded()).isEqualTo(bytes(200, 2));
    assertThat(second.encodedOffset()).isEqualTo(100);
    assertThat(store.slabsHoldingSpans()).isEqualTo(1);
    assertThat(store.allocatedBytes()).isEqualTo(4096);
  }

  @Test
  void aSlabIsWrittenOver_onlyOnceEverySpanInItIsReleased() {
    SpanStore.Writer writer = store.writer();
    List<SpanRecord> spans = new ArrayList<>();
    for (int i = 0; i < 40; i++) { // 40 × 1000 bytes: ten slabs, four spans each
      spans.add(place(writer, bytes(1000, i)));
    }
    writer.close();
    assertThat(store.slabsHoldingSpans()).isEqualTo(10);

    List<SpanRecord> released = new ArrayList<>();
    List<SpanRecord> kept = new ArrayList<>();
    for (int i = 0; i < spans.size(); i++) {
      (i % 4 == 3 && i < 20 ? kept : released).add(spans.get(i));
    }
    SpanRecord.releaseBytes(released);
    // Five slabs still hold one span each; the other five are free to be written over.
    assertThat(store.slabsHoldingSpans()).isEqualTo(5);

    SpanStore.Writer next = store.writer();
    for (int i = 0; i < 300; i++) { // more than the whole store holds
      next.place(bytes(1000, 100 + i), 0, 1000);
    }
    next.close();
    for (SpanRecord span : kept) {
      int i = spans.indexOf(span);
      assertThat(span.copyOfEncoded()).as("span %d", i).isEqualTo(bytes(1000, i));
    }
    assertThat(store.allocatedBytes()).isEqualTo(64 * 4096);
  }

  @Test
  void aWritersPartlyFilledSlab_goesToTheNextWriter_andIsNotWrittenOverWhileOpen() {
    SpanStore.Writer writer = store.writer();
    SpanRecord span = place(writer, bytes(10, 7));
    writer.close();
    SpanRecord.releaseBytes(List.of(span));
    assertThat(store.slabsHoldingSpans()).isZero();

    SpanStore.Writer next = store.writer();
    SpanRecord after = place(next, bytes(10, 8));
    next.close();
    assertThat(after.slab()).isSameAs(span.slab());
    assertThat(after.encodedOffset()).isEqualTo(10);
    assertThat(store.slabsInUse()).isEqualTo(1);
    assertThat(store.overflows()).isZero();
  }

  @Test
  void appendedBytes_andReceivedSpans_continueSlabsOfTheirOwn() {
    SpanStore.Writer appending = store.appendWriter();
    int appended = appending.reserve(10);
    Slab appendedSlab = appending.slab();
    appending.close();
    SpanStore.Writer receiving = store.writer();
    SpanRecord span = place(receiving, bytes(10, 1));
    receiving.close();

    assertThat(appended).isZero();
    assertThat(span.slab()).as("not the slab the appended bytes left open")
        .isNotSameAs(appendedSlab);
    assertThat(span.encodedOffset()).isZero();

    SpanStore.Writer appendingNext = store.appendWriter();
    assertThat(appendingNext.reserve(10)).isEqualTo(10);
    assertThat(appendingNext.slab()).isSameAs(appendedSlab);
    appendingNext.close();
    SpanStore.Writer receivingNext = store.writer();
    SpanRecord next = place(receivingNext, bytes(10, 2));
    receivingNext.close();
    assertThat(next.slab()).isSameAs(span.slab());
    assertThat(next.encodedOffset()).isEqualTo(10);

    // Its appended bytes released, that slab holds no span; it stays open for the next append.
    Slab.release(List.of(span, span), ignored -> appendedSlab);
    assertThat(store.slabsHoldingSpans()).isEqualTo(1);
    assertThat(store.slabsInUse()).isEqualTo(2);
  }

  @Test
  void largeSpans_andSpansBeyondTheBound_getArraysOfTheirOwn() {
    SpanStore.Writer writer = store.writer();
    assertThat(writer.place(bytes(1025, 1), 0, 1025)).isEqualTo(-1);
    for (int i = 0; i < 64 * 4; i++) {
      assertThat(writer.place(bytes(1024, 1), 0, 1024)).as("span %d", i).isNotNegative();
    }
    assertThat(writer.place(bytes(10, 1), 0, 10)).isEqualTo(-1);
    writer.close();
    assertThat(store.allocatedBytes()).isEqualTo(64 * 4096);
    assertThat(store.inUseBytes()).isEqualTo(64 * 4096);
    assertThat(store.overflows()).as("the large span and the one beyond the bound").isEqualTo(2);

    SpanStore none = SpanStore.ofSize(0);
    SpanStore.Writer noneWriter = none.writer();
    assertThat(noneWriter.place(bytes(10, 1), 0, 10)).isEqualTo(-1);
    noneWriter.close();
    assertThat(none.allocatedBytes()).isZero();
  }

  @Test
  void reservedRanges_areWrittenByTheCaller_andHeldLikePlacedSpans() {
    SpanStore.Writer writer = store.writer();
    SpanRecord span = place(writer, bytes(100, 1));
    int reserved = writer.reserve(50);
    Slab slab = writer.slab();
    Arrays.fill(slab.bytes(), reserved, reserved + 50, (byte) 9);
    SpanRecord after = place(writer, bytes(100, 2));
    writer.close();

    assertThat(reserved).isEqualTo(100);
    assertThat(after.encodedOffset()).as("after the reserved range").isEqualTo(150);
    assertThat(span.copyOfEncoded()).isEqualTo(bytes(100, 1));
    SpanRecord.releaseBytes(List.of(span, after));
    assertThat(store.slabsHoldingSpans()).as("the reserved range's hold").isEqualTo(1);
    Slab.release(List.of(span), ignored -> slab);
    assertThat(store.slabsHoldingSpans()).isZero();
  }

  @Test
  void holdsAreCountedPerSpan_acrossHolders() {
    SpanStore.Writer writer = store.writer();
    List<SpanRecord> spans = List.of(place(writer, bytes(100, 1)), place(writer, bytes(100, 2)));
    writer.close();
    Slab.retain(spans, SpanRecord::slab); // a second holder, e.g. a forwarding queue

    SpanRecord.releaseBytes(spans);
    assertThat(store.slabsHoldingSpans()).isEqualTo(1);
    SpanRecord.releaseBytes(spans);
    assertThat(store.slabsHoldingSpans()).isZero();
    assertThatThrownBy(() -> SpanRecord.releaseBytes(spans)).isInstanceOf(IllegalStateException.class);
  }

  /** Writers on several threads, spans released on others: no span ever sees another's bytes. */
  @Test
  void concurrentWritersAndReleases_neverShareBytes() throws Exception {
    SpanStore small = SpanStore.ofSize(16 * 4096);
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
    for (int t = 0; t < 4; t++) {
      int seed = t;
      threads.add(new Thread(() -> {
        try {
          Random random = new Random(seed);
          List<SpanRecord> held = new ArrayList<>();
          List<byte[]> expected = new ArrayList<>();
          for (int round = 0; round < 2000; round++) {
            SpanStore.Writer writer = small.writer();
            for (int i = 0; i < 5; i++) {
              byte[] bytes = bytes(1 + random.nextInt(600), random.nextInt());
              int at = writer.place(bytes, 0, bytes.length);
              held.add(at < 0 ? SpanRecord.builder().setResource(TestSpans.RESOURCE)
                  .setScope(TestSpans.SCOPE).setEncoded(bytes).build()
                  : record(writer.slab(), at, bytes.length));
              expected.add(bytes);
            }
            writer.close();
            while (held.size() > 20) {
              assertThat(held.get(0).copyOfEncoded()).isEqualTo(expected.get(0));
              SpanRecord.releaseBytes(held.subList(0, 1));
              held.remove(0);
              expected.remove(0);
            }
          }
          SpanRecord.releaseBytes(held);
        } catch (Throwable failure) {
          failures.add(failure);
        }
      }));
    }
    threads.forEach(Thread::start);
    for (Thread thread : threads) {
      thread.join();
    }
    assertThat(failures).isEmpty();
    assertThat(small.slabsHoldingSpans()).isZero();
  }

  private static SpanRecord place(SpanStore.Writer writer, byte[] bytes) {
    int at = writer.place(bytes, 0, bytes.length);
    assertThat(at).isNotNegative();
    return record(writer.slab(), at, bytes.length);
  }

  private static SpanRecord record(Slab slab, int offset, int length) {
    return SpanRecord.builder()
        .setResource(TestSpans.RESOURCE)
        .setScope(TestSpans.SCOPE)
        .setEncoded(slab, offset, length)
        .build();
  }

  /** {@code length} bytes that differ from those of any other seed. */
  private static byte[] bytes(int length, int seed) {
    byte[] bytes = new byte[length];
    Random random = new Random(seed);
    random.nextBytes(bytes);
    Arrays.fill(bytes, 0, Math.min(4, length), (byte) seed);
    return bytes;
  }
}
