package dev.spanprof.ingest;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.spanprof.assembly.AcceptedSpansConsumer;
import dev.spanprof.assembly.AssemblyListener;
import dev.spanprof.assembly.AssemblyPolicy;
import dev.spanprof.assembly.CompletedTrace;
import dev.spanprof.assembly.Completion;
import dev.spanprof.assembly.ManualTimeSource;
import dev.spanprof.assembly.TraceAssembler;
import dev.spanprof.assembly.TraceHandoff;
import dev.spanprof.config.AssemblyConfiguration;
import dev.spanprof.config.IngestConfiguration;
import dev.spanprof.ingest.IngestResult.Outcome;
import dev.spanprof.otlp.OtlpJson;
import dev.spanprof.span.SpanMapping;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.TraceId;
import dev.spanprof.span.store.SpanStore;
import dev.spanprof.testing.Otlp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class TraceIngestTest {

  private final List<String> events = new ArrayList<>();
  private final List<CompletedTrace> completed = new ArrayList<>();
  private final IngestGate gate = new IngestGate(null);
  /** Whether the analysis takes completed traces: when not, a full buffer cannot make room. */
  private boolean analysisHasRoom = true;
  private final TraceAssembler assembler = new TraceAssembler(
      new AssemblyPolicy(Duration.ofSeconds(5), Duration.ofSeconds(60), 2, 100, 100),
      new ManualTimeSource(), new TraceHandoff() {
        @Override
        public boolean offer(CompletedTrace trace) {
          if (analysisHasRoom) {
            completed.add(trace);
          }
          return analysisHasRoom;
        }

        @Override
        public boolean hasRoomFor(int traceSpans) {
          return analysisHasRoom;
        }
      }, AssemblyListener.NOOP);
  private final SpanStore store = SpanStore.ofSize(1 << 20);
  private final MemoryGuard memory = new MemoryGuard(1000, 80, () -> 0, () -> {});
  private final TraceIngest ingest;
  private boolean forwardingHasRoom = true;
  /** Pass-through forwarding to a next hop that takes what is sent: the queue may refuse. */
  private boolean forwardingMayRefuse;

  TraceIngestTest() {
    AssemblyConfiguration assembly = new AssemblyConfiguration();
    assembly.setMaxBufferedSpans(2);
    ingest = new TraceIngest(assembler, gate, new IngestListener() {
      @Override
      public void onAccepted(Transport transport, int spans) {
        events.add("accepted " + spans);
      }

      @Override
      public void onRefused(Transport transport, SpanRefusal reason, int spans) {
        events.add("refused " + reason.label() + " " + spans);
      }

      @Override
      public void onEndBeforeStart(Transport transport, int spans) {
        events.add("end-before-start " + spans);
      }

      @Override
      public void onRequestRejected(Transport transport, RequestRejection reason) {
        events.add("rejected " + reason.label());
      }
    }, new AcceptedSpansConsumer() {
      @Override
      public void onAccepted(List<SpanRecord> spans) {
        events.add("forwardable " + spans.size());
      }

      @Override
      public boolean hasRoomFor(int spans) {
        return forwardingHasRoom;
      }

      @Override
      public boolean mayRefuse() {
        return forwardingMayRefuse;
      }
    }, memory, null, store, SpanMapping.defaults(), new IngestConfiguration(), assembly);
  }

  @Test
  void exportProtobuf_heapOverItsLimit_refusedAsFullUndecoded_countedAsMemoryLimit() {
    memory.afterCollection(801, true);
    TraceId trace = new TraceId(1, 1);
    byte[] body = Otlp.request("shop", Otlp.span(trace, 1), Otlp.span(trace, 2)).toByteArray();

    IngestResult result = ingest.exportProtobuf(body, Transport.GRPC);

    assertThat(result.outcome()).isEqualTo(Outcome.FULL);
    assertThat(result.message()).contains("80.1 % full after collection",
        "spanprof.memory.limit-percentage");
    assertThat(events).containsExactly("refused memory_limit 2");
    assertThat(assembler.bufferedSpans()).isZero();

    memory.afterCollection(800, true);
    assertThat(ingest.exportProtobuf(body, Transport.GRPC).outcome()).isEqualTo(Outcome.ACCEPTED);
  }

  @Test
  void exportRecord_spansTellTheirOrigin_andArriveAtTheRecordsTimestamp() {
    RecordOrigin origin = new RecordOrigin(true);
    TraceId trace = new TraceId(1, 1);
    byte[] body = Otlp.request("shop", Otlp.span(trace, 1), Otlp.span(trace, 2)).toByteArray();

    IngestResult result = ingest.exportRecord(body, false, origin, 42_000_000_123L);
    assembler.completeAll(Completion.SHUTDOWN);

    assertThat(result.outcome()).isEqualTo(Outcome.ACCEPTED);
    assertThat(origin.spans).isEqualTo(2);
    assertThat(events).containsExactly("accepted 2", "forwardable 2");
    assertThat(completed).singleElement().satisfies(done -> {
      assertThat(done.arrivalEpochNanos()).isEqualTo(42_000_000_123L);
      assertThat(done.spans()).allSatisfy(span -> assertThat(span.origin()).isSameAs(origin));
    });
  }

  @Test
  void exportRecord_readAgainToRebuildTheWindows_isBufferedOnly_notCountedNorForwarded() {
    RecordOrigin origin = new RecordOrigin(false);
    TraceId trace = new TraceId(1, 1);
    byte[] json = OtlpJson.encode(Otlp.request("shop", Otlp.span(trace, 1)));

    IngestResult result = ingest.exportRecord(json, true, origin, 7L);
    assembler.completeAll(Completion.SHUTDOWN);

    assertThat(result.outcome()).isEqualTo(Outcome.ACCEPTED);
    assertThat(origin.spans).isEqualTo(1);
    assertThat(events).isEmpty();
    assertThat(completed).singleElement()
        .satisfies(done -> assertThat(done.arrivalEpochNanos()).isEqualTo(7L));
  }

  @Test
  void exportRecord_undecodable_isMalformed_andItsOriginToldNothing() {
    RecordOrigin origin = new RecordOrigin(true);

    IngestResult result = ingest.exportRecord(new byte[] {0x0a, 0x7f, 0x01}, false, origin, 1L);

    assertThat(result.outcome()).isEqualTo(Outcome.MALFORMED);
    assertThat(origin.spans).isEqualTo(-1);
    assertThat(events).containsExactly("rejected malformed");
  }

  /** Records what a record's origin is told. */
  private static final class RecordOrigin implements LogRecordOrigin {
    private final boolean forwards;
    int spans = -1;

    RecordOrigin(boolean forwards) {
      this.forwards = forwards;
    }

    @Override
    public void spans(int count) {
      spans = count;
    }

    @Override
    public boolean forwards() {
      return forwards;
    }

    @Override
    public boolean beginAnalysis() {
      return true;
    }

    @Override
    public void abandon() {}

    @Override
    public void stepDone() {}

    @Override
    public void failed() {}
  }

  @Test
  void exportProtobuf_passThroughForwardingFull_refusedAsFullAndNothingTaken() {
    forwardingHasRoom = false;
    TraceId trace = new TraceId(1, 1);
    byte[] body = Otlp.request("shop", Otlp.span(trace, 1), Otlp.span(trace, 2)).toByteArray();

    IngestResult result = ingest.exportProtobuf(body, Transport.HTTP);

    assertThat(result.outcome()).isEqualTo(Outcome.FULL);
    assertThat(result.message()).startsWith("the forwarding queue is full");
    assertThat(events).containsExactly("refused buffer_full 2");
    assertThat(assembler.bufferedSpans()).isZero();
    assertThat(store.slabsHoldingSpans()).as("the refused spans' bytes given back").isZero();
  }

  /** A request of two spans malformed inside, in each encoding: counted two, decoded malformed. */
  enum MalformedInside {
    PROTOBUF {
      @Override
      IngestResult export(TraceIngest ingest) {
        return ingest.exportProtobuf(Otlp.twoSpansMalformedInside(), Transport.HTTP);
      }
    },
    JSON {
      @Override
      IngestResult export(TraceIngest ingest) {
        return ingest.exportJson(Otlp.twoJsonSpansMalformedInside(), Transport.HTTP);
      }
    };

    abstract IngestResult export(TraceIngest ingest);
  }

  @ParameterizedTest
  @EnumSource(MalformedInside.class)
  void export_passThroughForwardingFullAndMayRefuse_refusedHavingOnlyCountedTheSpans(
      MalformedInside request) {
    forwardingMayRefuse = true;
    forwardingHasRoom = false;

    IngestResult result = request.export(ingest);

    assertThat(result.outcome()).isEqualTo(Outcome.FULL);
    assertThat(result.message()).isEqualTo("the forwarding queue is full "
        + "(spanprof.export.queue-spans): the next hop takes spans more slowly than they come in; "
        + "none of the 2 spans was taken, retry later");
    assertThat(events).containsExactly("refused buffer_full 2");
    forwardingHasRoom = true;
    assertThat(request.export(ingest).outcome())
        .as("with room, the same request is decoded").isEqualTo(Outcome.MALFORMED);
  }

  @Test
  void exportProtobuf_moreSpansThanTheBufferHolds_tooLargeAndCounted() {
    TraceId trace = new TraceId(1, 1);
    byte[] body = Otlp.request("shop", Otlp.span(trace, 1), Otlp.span(trace, 2), Otlp.span(trace, 3))
        .toByteArray();

    IngestResult result = ingest.exportProtobuf(body, Transport.GRPC);

    assertThat(result.outcome()).isEqualTo(Outcome.TOO_LARGE);
    assertThat(result.message()).isEqualTo("the request has 3 spans, more than the whole span buffer "
        + "holds (spanprof.assembly.max-buffered-spans=2); split it into smaller requests");
    assertThat(events).containsExactly("refused too_large 3");
    assertThat(assembler.bufferedSpans()).isZero();
    assertThat(store.slabsHoldingSpans()).as("the refused spans' bytes given back").isZero();
  }

  @ParameterizedTest
  @EnumSource(MalformedInside.class)
  void export_bufferFullAndAnalysisFull_refusedAsFullHavingOnlyCountedTheSpans(
      MalformedInside request) {
    fillTheBufferWhileTheAnalysisIsFull();

    // Spans that the decode would refuse as malformed: the refusal did not read them.
    IngestResult result = request.export(ingest);

    assertThat(result.outcome()).isEqualTo(Outcome.FULL);
    assertThat(result.message()).isEqualTo("the span buffer is full "
        + "(spanprof.assembly.max-buffered-spans=2); none of the 2 spans was taken, retry later");
    assertThat(events).containsExactly("refused buffer_full 2");
    assertThat(assembler.bufferedSpans()).isEqualTo(1);
    assertThat(store.slabsHoldingSpans()).as("only the buffered span's bytes held").isOne();
  }

  @ParameterizedTest
  @EnumSource(MalformedInside.class)
  void export_bufferFullButAnalysisTakesTheOldestTrace_decodedAsUsual(MalformedInside request) {
    fillTheBufferWhileTheAnalysisIsFull();
    analysisHasRoom = true;

    IngestResult result = request.export(ingest);

    assertThat(result.outcome()).isEqualTo(Outcome.MALFORMED);
    assertThat(events).containsExactly("rejected malformed");
  }

  @Test
  void exportProtobuf_analysisFullButTheRequestFits_accepted() {
    fillTheBufferWhileTheAnalysisIsFull();
    TraceId trace = new TraceId(4, 4);

    IngestResult result = ingest.exportProtobuf(
        Otlp.request("shop", Otlp.span(trace, 1)).toByteArray(), Transport.GRPC);

    assertThat(result.outcome()).isEqualTo(Outcome.ACCEPTED);
    assertThat(events).containsExactly("accepted 1", "forwardable 1");
    assertThat(assembler.bufferedSpans()).isEqualTo(2);
  }

  @Test
  void exportProtobuf_bufferAndAnalysisFull_malformedFramingOrTooLargeOrClosed_saidAsUsual() {
    fillTheBufferWhileTheAnalysisIsFull();
    TraceId trace = new TraceId(5, 5);
    byte[] tooLarge = Otlp.request("shop", Otlp.span(trace, 1), Otlp.span(trace, 2),
        Otlp.span(trace, 3)).toByteArray();

    assertThat(ingest.exportProtobuf(new byte[] {0x0A, 0x05}, Transport.GRPC).outcome())
        .isEqualTo(Outcome.MALFORMED);
    assertThat(ingest.exportProtobuf(tooLarge, Transport.GRPC).outcome())
        .isEqualTo(Outcome.TOO_LARGE);
    gate.close();
    assertThat(ingest.exportProtobuf(Otlp.twoSpansMalformedInside(), Transport.GRPC).outcome())
        .isEqualTo(Outcome.UNAVAILABLE);
    assertThat(events)
        .containsExactly("rejected malformed", "refused too_large 3", "rejected unavailable");
  }

  @Test
  void exportJson_bufferAndAnalysisFull_notJsonOrFitting_saidAsUsual() {
    fillTheBufferWhileTheAnalysisIsFull();
    byte[] oneSpan = OtlpJson.encode(Otlp.request("shop", Otlp.span(new TraceId(6, 6), 1)));

    assertThat(ingest.exportJson("not even json".getBytes(UTF_8), Transport.HTTP).outcome())
        .isEqualTo(Outcome.MALFORMED);
    assertThat(ingest.exportJson(oneSpan, Transport.HTTP).outcome()).isEqualTo(Outcome.ACCEPTED);
    assertThat(events).containsExactly("rejected malformed", "accepted 1", "forwardable 1");
  }

  /** One span buffered of two, and a hand-off that takes no trace: nothing can make room. */
  private void fillTheBufferWhileTheAnalysisIsFull() {
    analysisHasRoom = false;
    TraceId trace = new TraceId(3, 3);
    ingest.exportProtobuf(Otlp.request("shop", Otlp.span(trace, 1)).toByteArray(), Transport.GRPC);
    assertThat(assembler.canMakeRoom()).isFalse();
    events.clear();
  }


  @Test
  void exportJson_gateClosed_unavailableWithoutDecoding() {
    gate.close();

    IngestResult result = ingest.exportJson("not even json".getBytes(), Transport.HTTP);

    assertThat(result.outcome()).isEqualTo(Outcome.UNAVAILABLE);
    assertThat(events).containsExactly("rejected unavailable");
  }

  @Test
  void exportProtobuf_validAndBackwardsSpans_acceptedAndFlagged() {
    TraceId trace = new TraceId(2, 2);
    byte[] body = Otlp.request("shop", Otlp.span(trace, 1),
        Otlp.span(trace, 2).setStartTimeUnixNano(5).setEndTimeUnixNano(4)).toByteArray();

    IngestResult result = ingest.exportProtobuf(body, Transport.GRPC);

    assertThat(result.outcome()).isEqualTo(Outcome.ACCEPTED);
    assertThat(result.rejectedSpans()).isZero();
    assertThat(events).containsExactly("accepted 2", "forwardable 2", "end-before-start 1");
    assertThat(assembler.bufferedSpans()).isEqualTo(2);
    assertThat(store.slabsHoldingSpans()).as("the buffered spans' bytes held").isOne();
  }
}
