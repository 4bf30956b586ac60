package dev.spanprof.wiring;

import dev.spanprof.assembly.Completion;
import dev.spanprof.assembly.TraceAssembler;
import dev.spanprof.assembly.TraceWorkers;
import dev.spanprof.config.AssemblyConfiguration;
import dev.spanprof.config.SpanprofConfiguration;
import dev.spanprof.config.SpoolConfiguration;
import dev.spanprof.export.Forwarder;
import dev.spanprof.ingest.IngestGate;
import dev.spanprof.ingest.kafka.KafkaIngest;
import dev.spanprof.spool.Spool;
import dev.spanprof.stages.Periodic;
import io.micronaut.context.annotation.Context;
import io.micronaut.core.annotation.Nullable;
import jakarta.annotation.PreDestroy;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the pipeline: sweeps for due traces while the service runs, and drains it at shutdown.
 *
 * <p>Shutdown order: stop the Kafka ingest, if any ({@link KafkaIngest#stop}), close the ingest gate (new requests get UNAVAILABLE / 503 and readiness goes
 * down), stop sweeping, complete every buffered trace with {@link Completion#SHUTDOWN}, let the
 * workers finish, then send what forwarding has queued — all within {@code
 * spanprof.shutdown-timeout}; what is left then is counted as failed ({@code reason="shutdown"}). It runs once, whichever comes first:
 * the JVM shutdown hook ({@code Application}) or the application context closing.
 */
@Context
public final class PipelineLifecycle {

  private static final Logger LOG = LoggerFactory.getLogger(PipelineLifecycle.class);

  private final TraceAssembler assembler;
  private final TraceWorkers workers;
  private final Forwarder forwarder;
  private final IngestGate gate;
  private final Duration shutdownTimeout;
  private final Periodic sweeper;
  /** Syncs the spool to disk; null without a spool, or when each record is synced. */
  private final Periodic spoolSync;
  /** Null without a Kafka ingest. */
  private final KafkaIngest kafka;
  private boolean drained;

  PipelineLifecycle(
      TraceAssembler assembler,
      TraceWorkers workers,
      Forwarder forwarder,
      IngestGate gate,
      AssemblyConfiguration assemblyConfiguration,
      SpanprofConfiguration configuration,
      @Nullable Spool spool,
      SpoolConfiguration spoolConfiguration,
      @Nullable KafkaIngest kafka) {
    this.kafka = kafka;
    this.assembler = assembler;
    this.workers = workers;
    this.forwarder = forwarder;
    this.gate = gate;
    this.shutdownTimeout = configuration.getShutdownTimeout();
    this.sweeper = Periodic.start(
        "spanprof-assembly-sweeper", assemblyConfiguration.getSweepInterval(), assembler::sweep);
    Duration syncInterval = spoolConfiguration.getFsyncInterval();
    this.spoolSync = spool == null || syncInterval.isZero() ? null
        : Periodic.start("spanprof-spool-sync", syncInterval, spool::sync);
  }

  /**
   * Stops ingest and hands every buffered trace to the analysis, waiting at most the shutdown
   * timeout for the analysis to finish. Runs once; a concurrent caller (the context closing while
   * the shutdown hook drains) waits until the drain is done, so nothing it needs is closed under it.
   */
  @PreDestroy
  public synchronized void drain() {
    if (drained) {
      return;
    }
    drained = true;
    long deadline = System.nanoTime() + shutdownTimeout.toNanos();
    if (kafka != null) {
      // First, while the pipeline still runs: it gives its partitions up, waits for what it
      // began analysing to be forwarded and commits; their next owners read the rest.
      try {
        kafka.stop(shutdownTimeout);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    gate.close();
    sweeper.stop();
    workers.beginDrain();
    long buffered = assembler.bufferedSpans();
    if (!assembler.completeAll(Completion.SHUTDOWN)) {
      LOG.error("shutdown: {} spans could not be handed to the analysis", assembler.bufferedSpans());
    }
    try {
      boolean finished = workers.shutdown(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
      if (finished) {
        LOG.info("shutdown: completed the {} buffered spans and finished the analysis", buffered);
      } else {
        LOG.warn("shutdown: the analysis did not finish within {}; {} spans were left queued",
            shutdownTimeout, workers.queuedSpans());
      }
      forwarder.drain(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
      if (spoolSync != null) {
        spoolSync.stop(); // the spool syncs once more as it closes
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      LOG.warn("shutdown: interrupted while waiting for the analysis to finish");
    }
  }
}
