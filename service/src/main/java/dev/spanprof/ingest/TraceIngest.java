package dev.spanprof.ingest;

import dev.spanprof.assembly.AcceptedSpansConsumer;
import dev.spanprof.assembly.OfferResult;
import dev.spanprof.assembly.TraceAssembler;
import dev.spanprof.config.AssemblyConfiguration;
import dev.spanprof.config.IngestConfiguration;
import dev.spanprof.config.SpoolConfiguration;
import dev.spanprof.ingest.IngestListener.RequestRejection;
import dev.spanprof.ingest.IngestListener.SpanRefusal;
import dev.spanprof.ingest.IngestResult.Outcome;
import dev.spanprof.otlp.InvalidOtlpException;
import dev.spanprof.otlp.OtlpJson;
import dev.spanprof.span.SpanMapping;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.store.SpanStore;
import dev.spanprof.spool.Spool;
import io.micronaut.context.annotation.Context;
import io.micronaut.core.annotation.Nullable;
import jakarta.annotation.PreDestroy;
import java.util.List;

/**
 * What the OTLP endpoints do with a request body, and the Kafka ingest with a record: decode,
 * map, buffer, count. The endpoints only translate the {@link IngestResult} into their
 * protocol's status.
 *
 * <p>Created at start ({@link Context}), not at the first request: with a spool, the requests an
 * earlier run left there are loaded from the start.
 */
@Context
public final class TraceIngest {

  private final OtlpTraceMapper mapper;
  private final OtlpJson json = new OtlpJson();
  private final TraceAssembler assembler;
  private final IngestListener listener;
  private final AcceptedSpansConsumer accepted;
  private final MemoryGuard memory;
  /** Null without a spool. */
  private final SpoolLoader spool;
  private final long maxBufferedSpans;
  private final Admission admission;

  TraceIngest(
      TraceAssembler assembler,
      IngestGate gate,
      IngestListener listener,
      AcceptedSpansConsumer accepted,
      MemoryGuard memory,
      @Nullable Spool spool,
      SpanStore store,
      SpanMapping mapping,
      IngestConfiguration ingestConfiguration,
      AssemblyConfiguration assemblyConfiguration) {
    this.mapper = new OtlpTraceMapper(
        new StringInterner(ingestConfiguration.getMaxInternedStrings()), store, mapping);
    this.assembler = assembler;
    this.listener = listener;
    this.accepted = accepted;
    this.memory = memory;
    this.maxBufferedSpans = assemblyConfiguration.getMaxBufferedSpans();
    this.spool = spool == null ? null
        : new SpoolLoader(spool, assembler, accepted, gate, body -> mapper.map(body));
    this.admission = new Admission(gate::isOpen, memory::isOver, spool != null,
        assembler::canMakeRoom, assembler::hasRoomFor, accepted, maxBufferedSpans);
  }

  @PreDestroy
  void close() throws InterruptedException {
    if (spool != null) {
      spool.close();
    }
  }

  public IngestResult exportProtobuf(byte[] body, Transport transport) {
    return exportProtobuf(body, body.length, transport);
  }

  /** A body in {@code body[0, length)}; nothing refers to the array once this returns. */
  public IngestResult exportProtobuf(byte[] body, int length, Transport transport) {
    IngestResult refused = admit(transport, () -> OtlpSpanCount.of(body, length));
    return refused != null ? refused : export(transport, protobufMapping(body, length));
  }

  public IngestResult exportJson(byte[] body, Transport transport) {
    IngestResult refused = admit(transport, () -> OtlpJsonSpanCount.of(body));
    return refused != null ? refused : export(transport, jsonMapping(body));
  }

  /**
   * A record read from a log (Kafka), in OTLP protobuf or, with {@code json}, OTLP/JSON: its spans
   * tell {@code origin} as they are done, and arrive at {@code arrivalEpochNanos}, the record's
   * timestamp. Not spooled: the log holds the record until its reader commits past it. A span
   * whose origin does not forward it (read again to rebuild the windows) is analysed only, and
   * counted by the reader, not as accepted here.
   */
  public IngestResult exportRecord(byte[] value, boolean json, LogRecordOrigin origin,
      long arrivalEpochNanos) {
    Transport transport = Transport.KAFKA;
    IngestResult refused = admit(transport,
        json ? () -> OtlpJsonSpanCount.of(value) : () -> OtlpSpanCount.of(value, value.length));
    if (refused != null) {
      return refused;
    }
    Mapping mapping = json ? jsonMapping(value) : protobufMapping(value, value.length);
    return export(transport, mapping, decoded -> {
      origin.spans(decoded.mapped().spans().size());
      for (SpanRecord span : decoded.mapped().spans()) {
        span.origin(origin);
      }
      return buffer(decoded.mapped(), transport, origin.forwards(),
          spans -> assembler.offer(spans, arrivalEpochNanos));
    });
  }

  /** The {@link Admission}'s verdict, counted and answered; null: decode the request. */
  private IngestResult admit(Transport transport, Admission.SpanCount count) {
    Admission.Answer answer = admission.beforeDecoding(count);
    return switch (answer.verdict()) {
      case DECODE -> null;
      case SHUTTING_DOWN -> {
        listener.onRequestRejected(transport, RequestRejection.UNAVAILABLE);
        yield shuttingDown();
      }
      case MEMORY_LIMIT -> {
        listener.onRefused(transport, SpanRefusal.MEMORY_LIMIT, answer.spans());
        yield IngestResult.refused(Outcome.FULL, memory.refusal());
      }
      case FORWARDING_FULL -> {
        listener.onRefused(transport, SpanRefusal.BUFFER_FULL, answer.spans());
        yield forwardingFull(answer.spans());
      }
      case BUFFER_FULL -> {
        listener.onRefused(transport, SpanRefusal.BUFFER_FULL, answer.spans());
        yield bufferFull(answer.spans());
      }
    };
  }

  /** A request decoded and mapped, and its protobuf encoding {@code body[0, length)}. */
  private record Decoded(byte[] body, int length, MappedRequest mapped) {}

  private IngestResult export(Transport transport, Mapping mapping) {
    return export(transport, mapping, decoded -> spool != null ? spool(decoded, transport)
        : buffer(decoded.mapped(), transport, true, assembler::offer));
  }

  private IngestResult export(Transport transport, Mapping mapping, Taking taking) {
    Decoded decoded;
    try {
      decoded = mapping.map();
    } catch (InvalidOtlpException e) {
      listener.onRequestRejected(transport, RequestRejection.MALFORMED);
      return IngestResult.refused(Outcome.MALFORMED, e.getMessage());
    }
    MappedRequest mapped = decoded.mapped();
    try {
      IngestResult result = taking.take(decoded);
      if (result.outcome() != Outcome.ACCEPTED) {
        SpanRecord.releaseBytes(mapped.spans()); // nobody took them: their bytes' holds go back now
      }
      return result;
    } finally {
      mapped.writer().close();
    }
  }

  private Mapping protobufMapping(byte[] body, int length) {
    return () -> new Decoded(body, length, mapProtobuf(body, length));
  }

  /** OTLP/JSON is decoded into its protobuf encoding, which the spans keep for forwarding. */
  private Mapping jsonMapping(byte[] body) {
    return () -> {
      byte[] protobuf = json.decode(body).toByteArray();
      return new Decoded(protobuf, protobuf.length, mapper.map(protobuf));
    };
  }

  private MappedRequest mapProtobuf(byte[] body, int length) throws InvalidOtlpException {
    try {
      return mapper.map(body, length);
    } catch (InvalidOtlpException e) {
      throw new InvalidOtlpException(
          "the body is not a valid OTLP ExportTraceServiceRequest protobuf: " + e.getMessage(), e);
    }
  }

  /**
   * With a spool: the request's valid spans are written to it before the client hears they were
   * taken, and go into the pipeline now or, while it is full, later from disk.
   */
  private IngestResult spool(Decoded decoded, Transport transport) {
    MappedRequest mapped = decoded.mapped();
    if (mapped.rejectedSpans() > 0) {
      listener.onRefused(transport, SpanRefusal.INVALID, mapped.rejectedSpans());
    }
    int valid = mapped.spans().size();
    if (valid > maxBufferedSpans) {
      return tooLarge(transport, valid);
    }
    if (valid > 0 && !spool.spool(mapped, decoded.body(), decoded.length())) {
      listener.onRefused(transport, SpanRefusal.SPOOL_FULL, valid);
      return IngestResult.refused(Outcome.FULL, "the spool is full ("
          + SpoolConfiguration.PREFIX + ".max-size): the next hop has taken nothing for longer "
          + "than it holds; none of the " + valid + " spans was taken, retry later");
    }
    listener.onAccepted(transport, valid);
    if (mapped.endBeforeStartSpans() > 0) {
      listener.onEndBeforeStart(transport, mapped.endBeforeStartSpans());
    }
    return new IngestResult(Outcome.ACCEPTED, mapped.rejectedSpans(), mapped.problems());
  }

  /**
   * Into the span buffer through {@code offer}; with {@code forwarded} false, analysed only: not
   * handed to pass-through forwarding, nor counted as accepted.
   */
  private IngestResult buffer(MappedRequest mapped, Transport transport, boolean forwarded,
      Offer offer) {
    if (mapped.rejectedSpans() > 0) {
      listener.onRefused(transport, SpanRefusal.INVALID, mapped.rejectedSpans());
    }
    int valid = mapped.spans().size();
    if (forwarded && valid > 0 && !accepted.hasRoomFor(valid)) {
      listener.onRefused(transport, SpanRefusal.BUFFER_FULL, valid);
      return forwardingFull(valid);
    }
    return switch (offer.offer(mapped.spans())) {
      case ACCEPTED -> {
        if (forwarded) {
          listener.onAccepted(transport, valid);
          accepted.onAccepted(mapped.spans());
        }
        if (mapped.endBeforeStartSpans() > 0) {
          listener.onEndBeforeStart(transport, mapped.endBeforeStartSpans());
        }
        yield new IngestResult(Outcome.ACCEPTED, mapped.rejectedSpans(), mapped.problems());
      }
      case REFUSED_FULL -> {
        listener.onRefused(transport, SpanRefusal.BUFFER_FULL, valid);
        yield bufferFull(valid);
      }
      case REFUSED_TOO_LARGE -> tooLarge(transport, valid);
    };
  }

  private IngestResult tooLarge(Transport transport, int valid) {
    listener.onRefused(transport, SpanRefusal.TOO_LARGE, valid);
    return IngestResult.refused(Outcome.TOO_LARGE,
        "the request has " + valid + " spans, more than the whole span buffer holds "
            + "(spanprof.assembly.max-buffered-spans=" + maxBufferedSpans
            + "); split it into smaller requests");
  }

  private static IngestResult shuttingDown() {
    return IngestResult.refused(Outcome.UNAVAILABLE,
        "spanprof is shutting down and takes no new spans; retry against another replica");
  }

  private static IngestResult forwardingFull(int spans) {
    return IngestResult.refused(Outcome.FULL, "the forwarding queue is full "
        + "(spanprof.export.queue-spans): the next hop takes spans more slowly than they come "
        + "in; none of the " + spans + " spans was taken, retry later");
  }

  private IngestResult bufferFull(int spans) {
    return IngestResult.refused(Outcome.FULL,
        "the span buffer is full (spanprof.assembly.max-buffered-spans=" + maxBufferedSpans
            + "); none of the " + spans + " spans was taken, retry later");
  }

  /** Takes a decoded request's spans: spools or buffers them. */
  @FunctionalInterface
  private interface Taking {
    IngestResult take(Decoded decoded);
  }

  /** Offers spans to the span buffer. */
  @FunctionalInterface
  private interface Offer {
    OfferResult offer(List<SpanRecord> spans);
  }

  /** Turns a request body into span records, or says why it cannot. */
  @FunctionalInterface
  private interface Mapping {
    Decoded map() throws InvalidOtlpException;
  }
}
