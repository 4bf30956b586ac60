package dev.spanprof.export;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.CodedOutputStream;
import dev.spanprof.analysis.trace.TraceAnalyzer;
import dev.spanprof.analysis.trace.TraceProfile.SpanProfile;
import dev.spanprof.analysis.trace.TraceProfile;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.assembly.Completion;
import dev.spanprof.golden.GoldenCases;
import dev.spanprof.ingest.OtlpTestSpans;
import dev.spanprof.span.SpanMapping;
import dev.spanprof.span.SpanOrigin;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.store.SpanStore;
import io.grpc.Drainable;
import io.grpc.KnownLength;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ExportPiecesTest {

  private final SpanStore store = SpanStore.ofSize(64L << 20);
  private final SpanEnricher enricher = new SpanEnricher(span -> 42.0, store);

  @Test
  void queue_full_dropsTheOldestAndSaysHowMany() throws Exception {
    ExportQueue queue = new ExportQueue(3, ExportEntry::release, ExportEntry::release);
    List<ExportEntry> entries = entries(5);

    assertThat(queue.offer(entries)).isEqualTo(2);

    List<ExportEntry> batch = queue.take(10, 0);
    assertThat(batch).containsExactlyElementsOf(entries.subList(2, 5));
    assertThat(queue.size()).as("a taken batch counts until done").isEqualTo(3);
    queue.done(batch.size());
    assertThat(queue.size()).isZero();
  }

  @Test
  void queue_hasRoomFor_countsWaitingAndStillToComeButNotInFlight() throws Exception {
    ExportQueue queue = new ExportQueue(10, ExportEntry::release, ExportEntry::release);
    assertThat(queue.hasRoomFor(0, 10)).as("nothing anywhere: a trace as large as the queue")
        .isTrue();
    assertThat(queue.hasRoomFor(0, 11)).as("larger than the queue: never").isFalse();
    assertThat(queue.hasRoomFor(1, 10)).as("more to come first").isFalse();

    queue.offer(entries(4));
    assertThat(queue.hasRoomFor(0, 6)).isTrue();
    assertThat(queue.hasRoomFor(0, 7)).isFalse();
    assertThat(queue.hasRoomFor(3, 3)).isTrue();
    assertThat(queue.hasRoomFor(3, 4)).isFalse();

    List<ExportEntry> batch = queue.take(4, 0);
    assertThat(queue.hasRoomFor(0, 10)).as("a batch being sent leaves the queue's room").isTrue();
    queue.done(batch.size());
  }

  @Test
  void queue_take_returnsAFullBatchAtOnce_notAtTheFlushInterval() throws Exception {
    ExportQueue queue = new ExportQueue(10, ExportEntry::release, ExportEntry::release);
    List<ExportEntry> entries = entries(4);
    CompletableFuture<List<ExportEntry>> taken = takeInThread(queue, 3, TimeUnit.HOURS.toNanos(1));

    queue.offer(entries.subList(0, 1));
    queue.offer(entries.subList(1, 4));

    assertThat(taken.get(30, TimeUnit.SECONDS)).as("the first three, long before an hour")
        .containsExactlyElementsOf(entries.subList(0, 3));
    assertThat(queue.waiting()).isEqualTo(1);
  }

  @Test
  void queue_close_sendsEveryWaitingTakerAwayWithWhatIsThere() throws Exception {
    ExportQueue queue = new ExportQueue(10, ExportEntry::release, ExportEntry::release);
    long hourNanos = TimeUnit.HOURS.toNanos(1);
    CompletableFuture<List<ExportEntry>> gathering = takeInThread(queue, 3, hourNanos);
    CompletableFuture<List<ExportEntry>> waitingItsTurn = takeInThread(queue, 3, hourNanos);
    List<ExportEntry> entry = entries(1);
    queue.offer(entry);

    queue.close();

    List<ExportEntry> first = gathering.get(30, TimeUnit.SECONDS);
    List<ExportEntry> second = waitingItsTurn.get(30, TimeUnit.SECONDS);
    assertThat(List.of(first, second)).as("one of them took the entry, the other nothing")
        .containsExactlyInAnyOrder(entry, List.of());
  }

  /**
   * A taker on a thread of its own, returned once that thread waits in the queue: an offer made
   * after this call reaches a waiting taker.
   */
  private static CompletableFuture<List<ExportEntry>> takeInThread(ExportQueue queue, int max,
      long flushNanos) {
    CompletableFuture<List<ExportEntry>> taken = new CompletableFuture<>();
    Thread taker = new Thread(() -> {
      try {
        taken.complete(queue.take(max, flushNanos));
      } catch (Throwable failure) {
        taken.completeExceptionally(failure);
      }
    }, "taker");
    taker.setDaemon(true);
    taker.start();
    while (taker.getState() != Thread.State.WAITING && taker.getState() != Thread.State.TIMED_WAITING
        && !taken.isDone()) {
      Thread.onSpinWait();
    }
    return taken;
  }

  @Test
  void enricher_appendsToTheOriginalBytes_keepsAttributesTheSpanHas() throws Exception {
    Enriched trace = enrichGolden("seed-time-case3-overlap", Completion.TIMEOUT);
    List<SpanRecord> spans = trace.spans();
    List<ExportEntry> entries = trace.entries();

    for (int i = 0; i < spans.size(); i++) {
      // Whether the enricher looks up each key it adds among the span's own: as its mapping at
      // ingest found, when the span names a spanprof.* key itself.
      assertThat(spans.get(i).mayNameSpanprofKeys()).as("span %d", i).isEqualTo(
          Span.parseFrom(spans.get(i).copyOfEncoded()).getAttributesList().stream()
              .anyMatch(attribute -> attribute.getKey().startsWith("spanprof.")));
      // The original encoding itself comes first: nothing was re-encoded or copied.
      assertThat(entries.get(i).span()).isSameAs(spans.get(i).encodedArray());
      assertThat(entries.get(i).spanOffset()).isEqualTo(spans.get(i).encodedOffset());
      Span parsed = Span.parseFrom(enriched(entries.get(i)));
      Map<String, Long> counts = parsed.getAttributesList().stream()
          .collect(Collectors.groupingBy(KeyValue::getKey, Collectors.counting()));
      // Some seed spans carry spanprof.state already: it is not added a second time.
      assertThat(counts).allSatisfy((key, count) -> assertThat(count).as(key).isEqualTo(1));
      assertThat(counts).containsKeys("spanprof.resource", "spanprof.state",
          "spanprof.self_time_ns", "spanprof.critical_path_ns", "spanprof.on_critical_path",
          "spanprof.duration_percentile");
    }
  }

  @Test
  void enricher_encodesEachAppendedAttributeExactlyAsProtobufWould() throws Exception {
    Enriched trace = enrichGolden("fanout-self-time", Completion.TIMEOUT);
    List<SpanRecord> spans = trace.spans();
    List<ExportEntry> entries = trace.entries();
    TraceProfile profile = trace.profile();
    // Their mapping saw no spanprof.* key: each key is added without a lookup among theirs.
    assertThat(spans).noneMatch(SpanRecord::mayNameSpanprofKeys);

    for (int i = 0; i < spans.size(); i++) {
      byte[] original = spans.get(i).copyOfEncoded();
      byte[] enriched = enriched(entries.get(i));
      List<KeyValue> attributes = Span.parseFrom(enriched).getAttributesList();
      List<KeyValue> appended = attributes.subList(
          Span.parseFrom(original).getAttributesCount(), attributes.size());
      // The root carries strings, integers, a double and booleans: every hand-encoded type.
      ByteArrayOutputStream expected = new ByteArrayOutputStream();
      expected.write(original);
      CodedOutputStream out = CodedOutputStream.newInstance(expected);
      for (KeyValue attribute : appended) {
        out.writeMessage(Span.ATTRIBUTES_FIELD_NUMBER, attribute);
      }
      out.flush();
      assertThat(enriched).as("span %d", i).isEqualTo(expected.toByteArray());
    }
    // Each value under its own type, so a value written under the wrong oneof field fails here.
    Map<String, AnyValue> root = attributes(entries.get(profile.primaryRoot()));
    SpanProfile rootProfile = profile.spans().get(profile.primaryRoot());
    assertThat(root.get("spanprof.resource")).isEqualTo(
        AnyValue.newBuilder().setStringValue(rootProfile.resource()).build());
    assertThat(root.get("spanprof.self_time_ns")).isEqualTo(
        AnyValue.newBuilder().setIntValue(rootProfile.selfTimeNs()).build());
    assertThat(root.get("spanprof.on_critical_path")).isEqualTo(
        AnyValue.newBuilder().setBoolValue(rootProfile.onCriticalPath()).build());
    assertThat(root.get("spanprof.trace.parallelism")).isEqualTo(
        AnyValue.newBuilder().setDoubleValue(profile.parallelism()).build());
    // The case's late callback names a parent that never arrived: an orphan (semantics §2).
    assertThat(profile.orphanCount()).isEqualTo(1);
    assertThat(root.get("spanprof.trace.complete")).isEqualTo(
        AnyValue.newBuilder().setBoolValue(false).build());
  }

  @Test
  void enricher_keepsTheAppendedBytesInTheStore_untilReleased_orInArraysWhenItIsFull() {
    Enriched stored = enrichGolden("fanout-self-time", Completion.TIMEOUT);
    List<ExportEntry> entries = stored.entries();
    assertThat(entries).allSatisfy(entry -> {
      assertThat(entry.appendedSlab()).isNotNull();
      assertThat(entry.appended()).isSameAs(entry.appendedSlab().bytes());
    });
    assertThat(store.slabsHoldingSpans()).isEqualTo(1);

    // Another trace's attributes go after this one's: neither is written over while held.
    Enriched next = enrichGolden("seed-time-case3-overlap", Completion.TIMEOUT);
    assertThat(next.entries().get(0).appendedSlab()).isSameAs(entries.get(0).appendedSlab());
    assertThat(next.entries().get(0).appendedOffset())
        .isGreaterThanOrEqualTo(entries.get(entries.size() - 1).appendedOffset()
            + entries.get(entries.size() - 1).appendedLength());
    ExportEntry.release(entries);
    assertThat(store.slabsHoldingSpans()).as("the next trace's entries").isEqualTo(1);
    ExportEntry.release(next.entries());
    assertThat(store.slabsHoldingSpans()).isZero();

    SpanEnricher withoutRoom = new SpanEnricher(span -> 42.0, SpanStore.ofSize(0));
    List<ExportEntry> inArrays = withoutRoom.enrich(
        new CompletedTrace(stored.spans().get(0).traceId(), stored.spans(), Completion.TIMEOUT,
            false, 0), stored.profile());
    for (int i = 0; i < entries.size(); i++) {
      assertThat(inArrays.get(i).appendedSlab()).isNull();
      assertThat(enriched(inArrays.get(i))).as("span %d", i).isEqualTo(enriched(entries.get(i)));
    }
  }

  @Test
  void enricher_evictedTrace_isNotComplete() throws Exception {
    Map<String, AnyValue> root =
        attributes(enrichGolden("fanout-self-time", Completion.EVICTED).entries().get(0));

    assertThat(root.get("spanprof.trace.complete").getBoolValue()).isFalse();
    assertThat(root.get("spanprof.duration_percentile").getDoubleValue()).isEqualTo(42.0);
  }

  /** A golden trace, analysed and enriched as if completed the given way. */
  private Enriched enrichGolden(String golden, Completion completion) {
    List<SpanRecord> spans = OtlpTestSpans.fromJson(GoldenCases.otlpJson(golden));
    TraceProfile profile = new TraceAnalyzer(SpanMapping.defaults()).analyze(spans.get(0).traceId(), spans);
    List<ExportEntry> entries = enricher.enrich(
        new CompletedTrace(spans.get(0).traceId(), spans, completion, false, 0), profile);
    return new Enriched(spans, profile, entries);
  }

  private record Enriched(List<SpanRecord> spans, TraceProfile profile, List<ExportEntry> entries) {}

  /** The entry's encoded span: its original bytes, then what was appended. */
  private static byte[] enriched(ExportEntry entry) {
    byte[] span = Arrays.copyOfRange(entry.span(), entry.spanOffset(),
        entry.spanOffset() + entry.spanBytes());
    System.arraycopy(entry.appended(), entry.appendedOffset(), span, entry.spanLength(),
        entry.appendedLength());
    return span;
  }

  /** An enriched span's attributes by key; the first of a repeated key. */
  private static Map<String, AnyValue> attributes(ExportEntry entry) throws Exception {
    return Span.parseFrom(enriched(entry)).getAttributesList().stream()
        .collect(Collectors.toMap(KeyValue::getKey, KeyValue::getValue, (a, b) -> a));
  }

  @Test
  void encoder_keepsTheResourceAndScopeGroupsOfTheOriginalRequest() throws Exception {
    byte[] json = GoldenCases.otlpJson("fanout-self-time");
    ExportTraceServiceRequest original = OtlpTestSpans.decodeJson(json);
    List<SpanRecord> spans = OtlpTestSpans.fromJson(json);

    ExportTraceServiceRequest encoded = ExportTraceServiceRequest.parseFrom(ExportRequest.of(
        spans.stream().map(ExportEntry::asReceived).toList())
        .toByteArray());

    assertThat(encoded).isEqualTo(original);
  }

  @Test
  void request_streamedAsGrpcSendsIt_isTheWholeRequestOfTheComputedSize() throws Exception {
    List<SpanRecord> spans = OtlpTestSpans.fromJson(GoldenCases.otlpJson("fanout-self-time"));
    // Enough spans to pass the encoder's buffer a few times, each with an (empty) attribute
    // appended, so that each is written in two parts.
    List<ExportEntry> entries = IntStream.range(0, 400)
        .mapToObj(i -> spans.get(i % spans.size()))
        .map(span -> ExportEntry.enriched(span, new byte[] {0x7F, 0x4A, 0x00}, 1, 2, null))
        .toList();
    ExportRequest request = ExportRequest.of(entries);
    byte[] whole = request.toByteArray();
    assertThat(whole.length).isGreaterThan(3 * 8192).isEqualTo(request.size());
    assertThat(ExportTraceServiceRequest.parseFrom(whole).getResourceSpansList().stream()
        .flatMap(resource -> resource.getScopeSpansList().stream())
        .mapToInt(scope -> scope.getSpansCount()).sum()).isEqualTo(400);

    InputStream drained = ExportRequestMarshaller.TRACE_EXPORT.streamRequest(request);
    assertThat(drained).isInstanceOf(KnownLength.class);
    assertThat(drained.available()).isEqualTo(request.size());
    ByteArrayOutputStream target = new ByteArrayOutputStream();
    assertThat(((Drainable) drained).drainTo(target)).isEqualTo(request.size());
    assertThat(target.toByteArray()).isEqualTo(whole);
    assertThat(drained.available()).isZero();

    InputStream read = ExportRequestMarshaller.TRACE_EXPORT.streamRequest(request);
    assertThat(read.read()).isEqualTo(whole[0] & 0xFF);
    assertThat(read.available()).isEqualTo(request.size() - 1);
    assertThat(read.readAllBytes()).isEqualTo(Arrays.copyOfRange(whole, 1, whole.length));
  }

  private static List<ExportEntry> entries(int count) {
    List<SpanRecord> spans = OtlpTestSpans.fromJson(GoldenCases.otlpJson("seed-time-c0-short"));
    return IntStream.range(0, count)
        .mapToObj(i -> new ExportEntry(spans.get(0).resource(), spans.get(0).scope(),
            new byte[] {(byte) i}, 0, 1, null, new byte[0], 0, 0, null, SpanOrigin.NONE))
        .toList();
  }
}
