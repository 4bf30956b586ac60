package dev.spanprof.export;

import dev.spanprof.config.ExportConfiguration;
import dev.spanprof.config.ExportConfiguration.Mode;
import dev.spanprof.spool.Spool;
import dev.spanprof.time.TimeSource;
import io.micronaut.core.annotation.Nullable;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends spans to the next hop ({@code spanprof.export.*}): the queue and the senders that the
 * two modes share. What goes in is each mode's: {@link EnrichedForwarding} hands over every span
 * of an analysed trace with its attributes added, {@link PassThroughForwarding} the spans of an
 * accepted request as they came.
 *
 * <p>Spans wait in a bounded {@link ExportQueue}; {@code num-consumers} sender threads take
 * batches of up to {@code max-batch-spans} (waiting at most {@code flush-interval} for a batch to
 * fill), encode them with the original resource and scope grouping, and send them. A retryable failure is
 * retried with exponential backoff and jitter (at least the next hop's retry-after) until
 * {@code max-elapsed}; anything given up is counted with its reason, never silently lost.
 *
 * <p>A next hop slower than the spans coming in, or not taking them at all, holds the analysis
 * back ({@link #hasRoomFor}), so that ingest refuses and clients keep and retry what they would
 * send: an outage costs the senders' retries, not spans that were acknowledged. Retries probe
 * the connection afresh, and the first one that goes through wakes every sender waiting out its
 * backoff, so forwarding resumes as soon as the next hop is back.
 */
@Singleton
public final class Forwarder {

  private static final Logger LOG = LoggerFactory.getLogger(Forwarder.class);
  /**
   * Requests that isolating the spans at fault in one refused batch may take: a span at fault
   * among 1 024 takes 21 (two per halving, one repaired), so three such spans are found.
   */
  private static final int ISOLATION_REQUESTS = 64;
  /**
   * How the senders label a request refused for what it holds, whose spans can be isolated:
   * receivers built on protobuf-java answer INVALID_ARGUMENT or, in grpc-java, UNKNOWN for a
   * request that does not parse, grpc-go INTERNAL, OTLP/HTTP 400.
   */
  private static final Set<String> MALFORMED =
      Set.of("invalid_argument", "unknown", "internal", "http_400");

  private final boolean enabled;
  private final Mode mode;
  private final ExportConfiguration configuration;
  private final ExportQueue queue;
  private final ExportListener listener;
  private final TimeSource time;
  private final OtlpSender sender;
  /** Null without a spool. */
  private final Spool spool;
  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean stopping;
  private volatile long deadlineNanos = Long.MAX_VALUE;
  private volatile String lastError = "";
  /** Requests that went through; a sender waiting out its backoff retries once this moves. */
  private final AtomicLong wentThrough = new AtomicLong();
  private final Set<Thread> backingOff = ConcurrentHashMap.newKeySet();

  Forwarder(ExportConfiguration configuration, ExportListener listener, TimeSource time,
      @Nullable Spool spool) {
    this.configuration = configuration;
    this.enabled = configuration.enabled();
    this.mode = configuration.modeValue();
    this.listener = listener;
    this.time = time;
    this.spool = spool;
    this.queue = new ExportQueue(configuration.getQueueSpans(),
        dropped -> finished(dropped, true), left -> finished(left, false));
    if (!enabled) {
      this.sender = null;
      return;
    }
    URI endpoint = URI.create(configuration.getEndpoint().trim());
    if (endpoint.getHost() == null) {
      throw new IllegalArgumentException(ExportConfiguration.PREFIX + ".endpoint must be a URL "
          + "such as http://collector:4317, got '" + configuration.getEndpoint() + "'");
    }
    this.sender = switch (configuration.protocolValue()) {
      case GRPC -> new GrpcSender(endpoint, configuration);
      case HTTP_PROTOBUF -> new HttpSender(endpoint, false, configuration);
      case HTTP_JSON -> new HttpSender(endpoint, true, configuration);
    };
    if (configuration.getNumConsumers() < 1) {
      throw new IllegalArgumentException(ExportConfiguration.PREFIX
          + ".num-consumers must be at least 1, was " + configuration.getNumConsumers());
    }
    for (int i = 0; i < configuration.getNumConsumers(); i++) {
      Thread thread = new Thread(this::run, "spanprof-export-" + (i + 1));
      thread.setDaemon(true);
      thread.start();
      threads.add(thread);
    }
    LOG.info("forwarding {} spans to {} over {}", mode.name().toLowerCase(), endpoint,
        configuration.getProtocol());
  }

  /** Whether spans go out in {@code mode}: forwarding is on, and in that mode. */
  boolean forwards(Mode mode) {
    return enabled && this.mode == mode;
  }

  /**
   * Whether the queue has room for {@code spans} besides the {@code queuedSpans} waiting to be
   * handed over before them.
   */
  boolean hasRoomFor(long queuedSpans, int spans) {
    return queue.hasRoomFor(queuedSpans, spans);
  }

  /** Spans waiting to be sent or in flight. */
  public long queuedSpans() {
    return queue.size();
  }

  /**
   * Waits until every span handed over so far is sent or given up (and counted); false when
   * the timeout passed first.
   */
  boolean awaitSent(Duration timeout) throws InterruptedException {
    return queue.awaitEmpty(timeout.toNanos());
  }

  /** The last failure's message, for operators and tests; "" when none. */
  public String lastError() {
    return lastError;
  }

  /** Queues {@code entries}; what does not fit is counted as failed ({@code queue_full}). */
  void enqueue(List<ExportEntry> entries) {
    int dropped = queue.offer(entries);
    if (dropped > 0) {
      listener.onFailed("queue_full", dropped);
    }
  }

  private void run() {
    long flushNanos = configuration.getFlushInterval().toNanos();
    int maxBatch = configuration.getMaxBatchSpans();
    try {
      while (!(stopping && queue.waiting() == 0)) {
        List<ExportEntry> batch = queue.take(maxBatch, flushNanos);
        if (!batch.isEmpty()) {
          boolean resolved = false;
          try {
            resolved = send(batch);
          } finally {
            finished(batch, resolved);
            queue.done(batch.size());
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Sends {@code batch}. A batch the next hop refuses as malformed is split in halves down to the
   * spans at fault, each sent once more with its invalid UTF-8 repaired ({@link Utf8Repair}): one
   * bad span does not take the others down. Isolating spends at most
   * {@value #ISOLATION_REQUESTS} requests a batch, so a next hop that refuses everything costs a
   * few requests, not two per span.
   *
   * @return false when some of it was given up because spanprof is shutting down: with a spool,
   *     its record stays on disk for the next start
   */
  private boolean send(List<ExportEntry> batch) throws InterruptedException {
    BatchSend send = new BatchSend();
    SendResult refused = send.deliver(batch);
    if (refused != null) {
      send.isolate(batch, refused);
      if (send.givenUp > 0) {
        lastError = send.refusal.message();
        LOG.warn("forwarding gave up {} of {} spans that the next hop refused as malformed "
            + "({}): {}", send.givenUp, batch.size(), send.refusal.reason(),
            send.refusal.message());
      }
    }
    return !send.shutDown;
  }

  /** One batch's requests: retries, and the search for the spans at fault when refused. */
  private final class BatchSend {
    int requestsLeft = ISOLATION_REQUESTS;
    int givenUp;
    SendResult refusal;
    boolean shutDown;

    void isolate(List<ExportEntry> batch, SendResult refused) throws InterruptedException {
      if (batch.size() == 1) {
        ExportEntry repaired = Utf8Repair.repair(batch.get(0));
        if (repaired != null && requestsLeft > 0) {
          requestsLeft--;
          SendResult again = deliver(List.of(repaired));
          if (again == null) {
            listener.onRepaired(1);
            return;
          }
          refused = again;
        }
      } else if (requestsLeft >= 2) {
        requestsLeft -= 2;
        int half = batch.size() / 2;
        for (List<ExportEntry> part : List.of(batch.subList(0, half),
            batch.subList(half, batch.size()))) {
          SendResult partRefused = deliver(part);
          if (partRefused != null) {
            isolate(part, partRefused);
          }
        }
        return;
      }
      listener.onFailed(refused.reason(), batch.size());
      givenUp += batch.size();
      refusal = refused;
    }

    /**
     * Sends {@code batch} until it goes through or is given up, retrying as the next hop allows;
     * returns the answer when the next hop refused it as malformed, else null (it is resolved
     * and counted). With a spool, retries go on past {@code max-elapsed}: the spans wait on disk.
     */
    SendResult deliver(List<ExportEntry> batch) throws InterruptedException {
      ExportRequest request = ExportRequest.of(batch);
      int spans = batch.size();
      long start = time.nanoTime();
      for (int attempt = 0; ; attempt++) {
        if (attempt > 0) {
          sender.reconnectNow();
        }
        long sent = time.nanoTime();
        SendResult result = sender.send(request);
        listener.onRequest(Duration.ofNanos(time.nanoTime() - sent));
        switch (result.outcome()) {
          case SENT -> {
            wakeBackingOff();
            listener.onExported(spans - result.rejectedSpans());
            if (result.rejectedSpans() > 0) {
              listener.onFailed("rejected", result.rejectedSpans());
              LOG.warn("the next hop rejected {} of {} spans: {}", result.rejectedSpans(), spans,
                  result.message());
            }
            return null;
          }
          case FAILED -> {
            if (MALFORMED.contains(result.reason())) {
              return result;
            }
            giveUp(result.reason(), spans, result.message());
            return null;
          }
          case RETRY -> {
            Duration delay = backoff(attempt, result.retryAfter());
            long elapsed = time.nanoTime() - start;
            if (spool == null
                && elapsed + delay.toNanos() > configuration.getMaxElapsed().toNanos()) {
              giveUp("retries_exhausted", spans, result.message());
              return null;
            }
            if (time.nanoTime() + delay.toNanos() - deadlineNanos > 0) {
              giveUp("shutdown", spans, result.message());
              shutDown = true;
              return null;
            }
            listener.onRetry(result.reason());
            waitOut(delay);
          }
        }
      }
    }
  }

  /** Waits {@code delay}, or less if another sender's request goes through meanwhile. */
  private void waitOut(Duration delay) throws InterruptedException {
    long seen = wentThrough.get();
    Thread self = Thread.currentThread();
    backingOff.add(self);
    try {
      time.sleep(delay, () -> wentThrough.get() != seen);
    } finally {
      backingOff.remove(self);
    }
  }

  private void wakeBackingOff() {
    wentThrough.incrementAndGet();
    for (Thread waiting : backingOff) {
      LockSupport.unpark(waiting);
    }
  }

  /**
   * Gives up the holds of entries that are sent or given up; with a spool, {@code resolved} ones
   * (not those left at shutdown, nor a batch interrupted) are done there too.
   */
  private void finished(List<ExportEntry> entries, boolean resolved) {
    if (spool != null && resolved) {
      spool.resolved(entries, ExportEntry::resource);
    }
    ExportEntry.release(entries);
  }

  /** Exponential, capped, with equal jitter; at least what the next hop asked for. */
  private Duration backoff(int attempt, Duration retryAfter) {
    long base = configuration.getInitialBackoff().toNanos() << Math.min(attempt, 30);
    long capped = Math.min(Math.max(base, 0), configuration.getMaxBackoff().toNanos());
    long jittered = capped / 2 + ThreadLocalRandom.current().nextLong(capped / 2 + 1);
    return Duration.ofNanos(Math.max(jittered, retryAfter == null ? 0 : retryAfter.toNanos()));
  }

  private void giveUp(String reason, int spans, String message) {
    lastError = message;
    listener.onFailed(reason, spans);
    LOG.warn("forwarding gave up {} spans ({}): {}", spans, reason, message);
  }

  /**
   * Sends what is queued until {@code timeout} has passed; what is still queued then is counted
   * as failed with reason {@code shutdown}. Call after the analysis has finished.
   */
  public void drain(Duration timeout) throws InterruptedException {
    if (!enabled) {
      return;
    }
    deadlineNanos = time.nanoTime() + timeout.toNanos();
    stopping = true;
    queue.close();
    for (Thread thread : threads) {
      thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - time.nanoTime())));
    }
    for (Thread thread : threads) {
      if (thread.isAlive()) {
        thread.interrupt();
        thread.join(TimeUnit.SECONDS.toMillis(1));
      }
    }
    int left = queue.clear();
    if (left > 0) {
      giveUp("shutdown", left, "the shutdown timeout passed before these spans could be sent");
    }
  }

  @PreDestroy
  void close() throws InterruptedException {
    if (enabled) {
      if (!stopping) {
        drain(Duration.ZERO);
      }
      sender.close();
    }
  }
}
