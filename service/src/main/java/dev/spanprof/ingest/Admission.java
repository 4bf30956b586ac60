package dev.spanprof.ingest;

import dev.spanprof.assembly.AcceptedSpansConsumer;
import dev.spanprof.otlp.InvalidOtlpException;
import java.util.function.BooleanSupplier;
import java.util.function.IntPredicate;

/**
 * The one gate every ingest path asks before it decodes a request: whether spanprof takes it
 * now, or why not. Under overload, decoding each request before refusing it took the core the
 * accepted ones needed; so a request the pipeline would refuse anyway is refused having only
 * had its spans counted. In order:
 *
 * <ol>
 *   <li>shutting down ({@link IngestGate} closed): {@link Verdict#SHUTTING_DOWN}, for every request;
 *   <li>the heap after collection over its limit ({@link MemoryGuard}): {@link
 *       Verdict#MEMORY_LIMIT}, whatever the request holds;
 *   <li>with a spool: {@link Verdict#DECODE}, since what the pipeline has no room for waits on
 *       disk;
 *   <li>pass-through forwarding whose queue has no room for the request's spans: {@link
 *       Verdict#FORWARDING_FULL};
 *   <li>a full buffer that cannot make room, for a request it could hold when empty: {@link
 *       Verdict#BUFFER_FULL}.
 * </ol>
 *
 * Anything else is decoded ({@link Verdict#DECODE}): a request that fits, one whose framing is
 * malformed (the decoding then says where), one larger than the whole buffer (refused as too
 * large after decoding), or one of no spans. The decoded request may still be refused by the
 * buffer or the forwarding queue, which are asked again then.
 */
final class Admission {

  /** What to do with a request before decoding it. */
  enum Verdict {
    /** Decode it: it may be taken. */
    DECODE,
    /** Refuse it: spanprof is shutting down (UNAVAILABLE, retry elsewhere). */
    SHUTTING_DOWN,
    /** Refuse it: the heap is over its limit (retry later). */
    MEMORY_LIMIT,
    /** Refuse it: the pass-through forwarding queue has no room (retry later). */
    FORWARDING_FULL,
    /** Refuse it: the span buffer is full and cannot make room (retry later). */
    BUFFER_FULL
  }

  /** The verdict, and the request's spans when they were counted for it (else 0). */
  record Answer(Verdict verdict, int spans) {
    static final Answer DECODE = new Answer(Verdict.DECODE, 0);
    static final Answer SHUTTING_DOWN = new Answer(Verdict.SHUTTING_DOWN, 0);
  }

  /** Counts a request's spans without decoding them. */
  @FunctionalInterface
  interface SpanCount {
    int spans() throws InvalidOtlpException;
  }

  private final BooleanSupplier open;
  private final BooleanSupplier memoryOver;
  private final boolean spooling;
  private final BooleanSupplier bufferCanMakeRoom;
  private final IntPredicate bufferHasRoom;
  private final AcceptedSpansConsumer forwarding;
  private final long maxBufferedSpans;

  /**
   * @param open whether ingest takes spans ({@link IngestGate#isOpen})
   * @param memoryOver whether the heap is over its limit ({@link MemoryGuard#isOver})
   * @param spooling whether accepted spans wait on disk
   * @param bufferCanMakeRoom whether the buffer is not full, or can complete traces to make room
   * @param bufferHasRoom whether the buffer has room for so many spans now
   * @param forwarding pass-through forwarding, which may refuse a request its queue cannot hold
   * @param maxBufferedSpans the whole buffer: a larger request is refused after decoding
   */
  Admission(BooleanSupplier open, BooleanSupplier memoryOver, boolean spooling,
      BooleanSupplier bufferCanMakeRoom, IntPredicate bufferHasRoom,
      AcceptedSpansConsumer forwarding, long maxBufferedSpans) {
    this.open = open;
    this.memoryOver = memoryOver;
    this.spooling = spooling;
    this.bufferCanMakeRoom = bufferCanMakeRoom;
    this.bufferHasRoom = bufferHasRoom;
    this.forwarding = forwarding;
    this.maxBufferedSpans = maxBufferedSpans;
  }

  Answer beforeDecoding(SpanCount count) {
    if (!open.getAsBoolean()) {
      return Answer.SHUTTING_DOWN;
    }
    if (memoryOver.getAsBoolean()) {
      int spans;
      try {
        spans = count.spans();
      } catch (InvalidOtlpException malformed) {
        spans = 0; // refused all the same: decoding it would take the heap there is not
      }
      return new Answer(Verdict.MEMORY_LIMIT, spans);
    }
    if (spooling) {
      return Answer.DECODE;
    }
    boolean bufferStuck = !bufferCanMakeRoom.getAsBoolean();
    if (!bufferStuck && !forwarding.mayRefuse()) {
      return Answer.DECODE;
    }
    int spans;
    try {
      spans = count.spans();
    } catch (InvalidOtlpException malformed) {
      return Answer.DECODE;
    }
    if (spans == 0) {
      return Answer.DECODE;
    }
    if (!forwarding.hasRoomFor(spans)) {
      return new Answer(Verdict.FORWARDING_FULL, spans);
    }
    if (!bufferStuck || spans > maxBufferedSpans || bufferHasRoom.test(spans)) {
      return Answer.DECODE;
    }
    return new Answer(Verdict.BUFFER_FULL, spans);
  }
}
