package dev.spanprof.assembly;

import dev.spanprof.span.SpanRecord;
import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A fixed pool of threads that runs the {@link TraceSink} on completed traces, with a queue
 * bounded in spans.
 *
 * <p>{@link #offer} never blocks: when the queue holds {@code maxQueuedSpans}, or the sink has no
 * room for the queued spans and the offered ones ({@link TraceSink#hasRoomFor}: the forwarding's
 * queue is full), it says no, and the assembler keeps the trace buffered (which in turn makes
 * ingest refuse once the buffer is full — backpressure reaches the client instead of the heap, or
 * of the next hop's queue). A trace larger than the bound is never taken: the configuration keeps
 * {@code max-spans-per-trace} within it. While draining for shutdown the bound is lifted:
 * ingest is closed by then, so moving traces from the buffer to the queue cannot grow memory.
 */
public final class TraceWorkers implements TraceHandoff {

  private final ThreadPoolExecutor executor;
  private final TraceSink sink;
  private final AssemblyListener listener;
  private final long maxQueuedSpans;
  private final AtomicLong queuedSpans = new AtomicLong();
  private volatile boolean draining;

  public TraceWorkers(int threads, long maxQueuedSpans, TraceSink sink, AssemblyListener listener) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be at least 1, was " + threads);
    }
    if (maxQueuedSpans < 1) {
      throw new IllegalArgumentException("maxQueuedSpans must be at least 1, was " + maxQueuedSpans);
    }
    this.sink = sink;
    this.listener = listener;
    this.maxQueuedSpans = maxQueuedSpans;
    // The queue is unbounded in entries because it is bounded in spans by offer().
    this.executor = new ThreadPoolExecutor(
        threads, threads, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
        new NamedDaemonThreads("spanprof-analysis-"));
  }

  @Override
  public boolean offer(CompletedTrace trace) {
    int spans = trace.spanCount();
    if (draining) {
      queuedSpans.addAndGet(spans);
    } else if (!admit(spans)) {
      return false;
    }
    try {
      executor.execute(() -> process(trace));
      return true;
    } catch (RejectedExecutionException stopped) {
      queuedSpans.addAndGet(-spans);
      return false;
    }
  }

  @Override
  public boolean hasRoomFor(int traceSpans) {
    if (draining) {
      return true;
    }
    long queued = queuedSpans.get();
    return fits(queued, traceSpans) && sink.hasRoomFor(queued, traceSpans);
  }

  /** Spans handed over and not yet through the sink. */
  public long queuedSpans() {
    return queuedSpans.get();
  }

  /** Lifts the queue bound; call once ingest is closed, before completing the buffered traces. */
  public void beginDrain() {
    draining = true;
  }

  /**
   * Processes what is queued, then stops the threads.
   *
   * @return true when the queue was empty and every thread done within {@code timeout}
   */
  public boolean shutdown(Duration timeout) throws InterruptedException {
    executor.shutdown();
    return executor.awaitTermination(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  /**
   * One offer at a time asks the sink and reserves, so that two cannot both take the sink's last
   * room (the sweeper and ingest threads offer concurrently). Meanwhile the sink's own count only
   * falls, or counts a trace twice as it moves from this queue into the sink's.
   */
  private synchronized boolean admit(int spans) {
    return sink.hasRoomFor(queuedSpans.get(), spans) && reserve(spans);
  }

  private boolean reserve(int spans) {
    while (true) {
      long current = queuedSpans.get();
      if (!fits(current, spans)) {
        return false;
      }
      if (queuedSpans.compareAndSet(current, current + spans)) {
        return true;
      }
    }
  }

  private boolean fits(long queued, int spans) {
    return queued + spans <= maxQueuedSpans;
  }

  private void process(CompletedTrace trace) {
    try {
      sink.accept(trace);
    } catch (RuntimeException failure) {
      listener.onSinkFailure(trace, failure);
    } finally {
      SpanRecord.releaseBytes(trace.spans());
      queuedSpans.addAndGet(-trace.spanCount());
    }
  }
}
