package dev.spanprof.spool;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.analysis.TestSpans;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.SpanResource;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The spool's records on disk: pending until loaded, done once every span is resolved, a segment
 * deleted once all its records are done; found again at start, a torn tail dropped.
 */
class SpoolTest {

  /** Payloads here are text; a record's spans are its length, as a counter would find them. */
  private static final Spool.SpanCounter LENGTH = payload -> payload.length;

  @TempDir Path directory;

  @Test
  void append_pendingInOrderUntilLoaded_readBackAsWritten() throws Exception {
    try (Spool spool = open(100)) {
      Spool.Record first = append(spool, "abc");
      Spool.Record second = append(spool, "de");
      assertThat(spool.nextPending(0)).as("its writer decides first").isNull();
      spool.unload(second);
      spool.unload(first);
      assertThat(spool.pendingSpans()).isEqualTo(5);
      assertThat(spool.nextPending(0)).isSameAs(first);
      assertThat(spool.hasPendingBefore(second)).isTrue();
      assertThat(new String(spool.read(second), StandardCharsets.UTF_8)).isEqualTo("de");

      spool.loaded(first, spans(TestSpans.resource("a"), 3));
      assertThat(spool.pendingSpans()).isEqualTo(2);
      assertThat(spool.hasPendingBefore(second)).isFalse();
      assertThat(spool.nextPending(0)).isSameAs(second);

      spool.unload(first);
      assertThat(spool.nextPending(0)).as("back in its place").isSameAs(first);
      assertThat(spool.pendingSpans()).isEqualTo(5);
    }
  }

  @Test
  void resolved_everyRecordOfASealedSegmentDone_fileDeleted() throws Exception {
    try (Spool spool = open(8)) {
      SpanResource a = TestSpans.resource("a");
      SpanResource b = TestSpans.resource("b");
      Spool.Record first = append(spool, "abcd");
      spool.loaded(first, spans(a, 4));
      Spool.Record second = append(spool, "ef"); // the first segment is full: a second one
      spool.loaded(second, spans(b, 2));
      assertThat(segments()).hasSize(2);
      long bytes = spool.bytes();

      spool.resolved(spans(a, 4), SpanRecord::resource);

      assertThat(segments()).hasSize(1);
      assertThat(spool.bytes()).isEqualTo(bytes - (8 + 4));
      spool.resolved(b, 2);
      assertThat(segments()).as("the segment being written stays").hasSize(1);
    }
  }

  @Test
  void reopen_recordsNotDoneAtTheLastSyncArePendingAgain_inOrder() throws Exception {
    SpanResource a = TestSpans.resource("a");
    try (Spool spool = open(1000)) {
      spool.loaded(append(spool, "done"), spans(a, 4));
      spool.resolved(a, 4);
      spool.loaded(append(spool, "forwarded-not"), spans(TestSpans.resource("b"), 13));
      spool.unload(append(spool, "pending"));
    }

    try (Spool spool = open(1000)) {
      assertThat(spool.recoveredSpans()).isEqualTo(13 + 7);
      assertThat(payloads(spool)).containsExactly("forwarded-not", "pending");
      Spool.Record next = append(spool, "new");
      assertThat(spool.hasPendingBefore(next)).isFalse();
    }
  }

  @Test
  void reopen_withoutAWatermark_asAfterACrashBeforeTheFirstSync_everyRecordAgain()
      throws Exception {
    SpanResource a = TestSpans.resource("a");
    try (Spool spool = open(1000)) {
      spool.loaded(append(spool, "done"), spans(a, 4));
      spool.resolved(a, 4);
      spool.unload(append(spool, "pending"));
    }
    Files.delete(directory.resolve("spool.watermark"));

    try (Spool spool = open(1000)) {
      assertThat(payloads(spool)).containsExactly("done", "pending");
    }
  }

  @Test
  void reopen_tornOrCorruptTail_droppedFromThere() throws Exception {
    try (Spool spool = open(1000)) {
      append(spool, "kept");
      append(spool, "corrupt");
    }
    Path segment = segments().get(0);
    byte[] file = Files.readAllBytes(segment);
    file[file.length - 1] ^= 1; // a bit of the second payload flipped: its checksum fails
    Files.write(segment, file);
    Files.write(segment, ByteBuffer.allocate(6).putInt(Integer.reverseBytes(100)).array(),
        StandardOpenOption.APPEND); // and a record cut short after it

    try (Spool spool = open(1000)) {
      assertThat(spool.truncatedSegments()).isEqualTo(1);
      assertThat(Files.size(segment)).as("cut after the last good record").isEqualTo(8 + 4);
      assertThat(payloads(spool)).containsExactly("kept");
      assertThat(segments()).as("its one record done: deleted").isEmpty();
    }
  }

  @Test
  void append_beyondTheLimit_refused() throws Exception {
    try (Spool spool = new Spool(directory, 8 + 4 + 8 + 3, 1000, false, LENGTH)) {
      assertThat(append(spool, "abcd")).isNotNull();
      assertThat(append(spool, "efgh")).isNull();
      assertThat(append(spool, "efg")).isNotNull();
    }
  }

  private Spool open(long segmentBytes) throws IOException {
    return new Spool(directory, 1 << 20, segmentBytes, false, LENGTH);
  }

  private static Spool.Record append(Spool spool, String payload) {
    byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
    return spool.append(bytes, bytes.length, bytes.length);
  }

  private static List<SpanRecord> spans(SpanResource resource, int count) {
    List<SpanRecord> spans = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      spans.add(SpanRecord.builder().setTraceId(0, 1).setSpanId(i + 1).setName("op")
          .setStartNanos(0).setEndNanos(1).setResource(resource).setScope(TestSpans.SCOPE)
          .build());
    }
    return spans;
  }

  /** Every pending record's payload, oldest first, each loaded (with no span) once read. */
  private static List<String> payloads(Spool spool) throws Exception {
    List<String> payloads = new ArrayList<>();
    for (Spool.Record record = spool.nextPending(0); record != null;
        record = spool.nextPending(0)) {
      payloads.add(new String(spool.read(record), StandardCharsets.UTF_8));
      spool.loaded(record, List.of());
    }
    return payloads;
  }

  private List<Path> segments() throws IOException {
    try (Stream<Path> files = Files.list(directory)) {
      return files.filter(file -> file.getFileName().toString().endsWith(".log")).sorted()
          .toList();
    }
  }
}
