package dev.spanprof.ingest;

import dev.spanprof.assembly.AcceptedSpansConsumer;
import dev.spanprof.assembly.NamedDaemonThreads;
import dev.spanprof.assembly.OfferResult;
import dev.spanprof.assembly.TraceAssembler;
import dev.spanprof.otlp.InvalidOtlpException;
import dev.spanprof.span.SpanRecord;
import dev.spanprof.spool.Spool;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves spooled requests into the pipeline: a request at once, when the pipeline has room and no
 * older one waits on disk; the others from disk, oldest first, on a thread of their own as room
 * frees up (the next hop back after an outage, or at start the requests an earlier run left).
 */
final class SpoolLoader implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(SpoolLoader.class);
  /** How often a waiting request is offered again while the pipeline is full: as the sweeps. */
  private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  /** Maps a request read back from the spool. */
  @FunctionalInterface
  interface Mapper {
    MappedRequest map(byte[] body) throws InvalidOtlpException;
  }

  private final Spool spool;
  private final TraceAssembler assembler;
  private final AcceptedSpansConsumer accepted;
  private final IngestGate gate;
  private final Mapper mapper;
  private final Thread loader;

  SpoolLoader(Spool spool, TraceAssembler assembler, AcceptedSpansConsumer accepted,
      IngestGate gate, Mapper mapper) {
    this.spool = spool;
    this.assembler = assembler;
    this.accepted = accepted;
    this.gate = gate;
    this.mapper = mapper;
    this.loader = new NamedDaemonThreads("spanprof-spool-loader-").newThread(this::run);
    loader.start();
  }

  /**
   * Writes an accepted request's valid spans to the spool, then puts them in the pipeline if it
   * has room and nothing older waits; otherwise they wait on disk and their bytes go back.
   *
   * @return false when the spool is full: nothing was taken
   */
  boolean spool(MappedRequest mapped, byte[] body, int length) {
    Spool.Record record = spool.append(body, length, mapped.spans().size());
    if (record == null) {
      return false;
    }
    if (spool.hasPendingBefore(record)) {
      spool.unload(record);
      SpanRecord.releaseBytes(mapped.spans());
    } else if (!load(record, mapped.spans())) {
      SpanRecord.releaseBytes(mapped.spans());
    }
    return true;
  }

  /** Offers a record's spans to the pipeline; false (the record pending again) when full. */
  private boolean load(Spool.Record record, List<SpanRecord> spans) {
    // The record learns its spans before they can be forwarded (at once, in pass-through mode).
    spool.loaded(record, spans);
    if (accepted.hasRoomFor(spans.size()) && assembler.offer(spans) == OfferResult.ACCEPTED) {
      accepted.onAccepted(spans);
      return true;
    }
    spool.unload(record);
    return false;
  }

  private void run() {
    try {
      while (gate.isOpen()) {
        Spool.Record record = spool.nextPending(TimeUnit.NANOSECONDS.toMillis(RETRY_NANOS));
        if (record == null) {
          continue;
        }
        MappedRequest mapped;
        try {
          mapped = mapper.map(spool.read(record));
        } catch (IOException | InvalidOtlpException e) {
          LOG.error("cannot read back a spooled request of {} spans; dropped: {}",
              record.spans(), e.getMessage());
          spool.loaded(record, List.of());
          continue;
        }
        try {
          if (!load(record, mapped.spans())) {
            SpanRecord.releaseBytes(mapped.spans());
            LockSupport.parkNanos(this, RETRY_NANOS);
          }
        } finally {
          mapped.writer().close();
        }
      }
    } catch (InterruptedException stopped) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() throws InterruptedException {
    loader.interrupt();
    loader.join(TimeUnit.SECONDS.toMillis(5));
  }
}
