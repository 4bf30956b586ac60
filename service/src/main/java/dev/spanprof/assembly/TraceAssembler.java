package dev.spanprof.assembly;

import dev.spanprof.span.SpanRecord;
import dev.spanprof.span.TraceId;
import dev.spanprof.time.TimeSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Buffers spans by trace id until their trace completes, then hands the trace on.
 *
 * <p>A trace completes when no span of it arrived for the trace timeout, when it has been open for
 * the maximum age, when it reaches the per-trace span limit, when the buffer needs room (the
 * oldest traces go first), or at shutdown. Completed traces go to a {@link TraceHandoff}; when the
 * hand-off has no room the trace simply stays buffered and is offered again on the next sweep, so
 * no span is ever dropped here. A fragment at the span limit that waits so takes no more spans:
 * the trace's next span starts the next fragment, so no fragment ever exceeds the limit.
 *
 * <p><b>Concurrency.</b> Traces live in shards chosen by trace id, each guarded by its own monitor,
 * so ingest threads contend only when they touch the same shard. Memory is bounded by one atomic
 * span budget ({@code maxBufferedSpans}): a request reserves all its spans before any is buffered,
 * which makes acceptance all-or-nothing and lets a refused request be retried whole.
 *
 * <p><b>Time.</b> Every decision reads the injected {@link TimeSource}; nothing here sleeps or
 * schedules. The service calls {@link #sweep()} periodically, tests call it after moving time.
 *
 * <pre>
 *   offer ──reserve budget──► shard[traceId] ──sweep / evict / limit──► handoff (workers)
 *           (evict oldest when short; refuse when still short)
 * </pre>
 */
public final class TraceAssembler {

  /** Enough shards that 2–16 ingest threads rarely meet, few enough that a sweep is cheap. */
  static final int DEFAULT_SHARDS = 64;

  private final AssemblyPolicy policy;
  private final long timeoutNanos;
  private final long maxAgeNanos;
  /** A trace that first arrived less than this long ago is due neither by timeout nor by age. */
  private final long dueAfterNanos;
  private final TimeSource time;
  private final TraceHandoff handoff;
  private final AssemblyListener listener;
  private final Shard[] shards;
  private final AtomicLong bufferedSpans = new AtomicLong();

  public TraceAssembler(
      AssemblyPolicy policy, TimeSource time, TraceHandoff handoff, AssemblyListener listener) {
    this(policy, time, handoff, listener, DEFAULT_SHARDS);
  }

  TraceAssembler(
      AssemblyPolicy policy,
      TimeSource time,
      TraceHandoff handoff,
      AssemblyListener listener,
      int shardCount) {
    if (Integer.bitCount(shardCount) != 1) {
      throw new IllegalArgumentException("shardCount must be a power of two, was " + shardCount);
    }
    this.policy = policy;
    this.timeoutNanos = policy.traceTimeout().toNanos();
    this.maxAgeNanos = policy.maxTraceAge().toNanos();
    this.dueAfterNanos = Math.min(timeoutNanos, maxAgeNanos);
    this.time = time;
    this.handoff = handoff;
    this.listener = listener;
    int recentPerShard = (policy.recentTraceIds() + shardCount - 1) / shardCount;
    this.shards = new Shard[shardCount];
    for (int i = 0; i < shardCount; i++) {
      shards[i] = new Shard(recentPerShard);
    }
  }

  /**
   * Buffers all of {@code spans} or none of them. When the buffer is short of room, the oldest
   * open traces are completed early ({@link Completion#EVICTED}) until the request fits or the
   * hand-off stops taking traces.
   */
  public OfferResult offer(List<SpanRecord> spans) {
    return offer(spans, time.epochNanos());
  }

  /**
   * As {@link #offer(List)}, the spans arriving at {@code arrivalEpochNanos} instead of now: the
   * timestamp of the log record they were read from, so that reading it again puts their trace
   * in the same slice (semantics.md §7).
   */
  public OfferResult offer(List<SpanRecord> spans, long arrivalEpochNanos) {
    int count = spans.size();
    if (count == 0) {
      return OfferResult.ACCEPTED;
    }
    if (count > policy.maxBufferedSpans()) {
      return OfferResult.REFUSED_TOO_LARGE;
    }
    while (!reserve(count)) {
      if (!evictOldest()) {
        return OfferResult.REFUSED_FULL;
      }
    }
    long now = time.nanoTime();
    int late = 0;
    // Spans of one trace mostly come one after the other: each run of them is appended under
    // one lock and one lookup of its trace.
    for (int from = 0, to; from < count; from = to) {
      SpanRecord first = spans.get(from);
      to = from + 1;
      while (to < count && spans.get(to).traceIdLow() == first.traceIdLow()
          && spans.get(to).traceIdHigh() == first.traceIdHigh()) {
        to++;
      }
      late += shardOf(first.traceIdHigh(), first.traceIdLow())
          .append(spans, from, to, now, arrivalEpochNanos);
    }
    if (late > 0) {
      listener.onLateSpans(late);
    }
    return OfferResult.ACCEPTED;
  }

  /**
   * Completes every trace that is due: idle for the timeout, older than the maximum age, or at the
   * span limit. Stops early when the hand-off has no room; what is left is completed next time.
   */
  public void sweep() {
    long now = time.nanoTime();
    for (Shard shard : shards) {
      if (!shard.completeDue(now)) {
        return;
      }
    }
  }

  /**
   * Completes every open trace with {@code reason}, as at shutdown.
   *
   * @return true when all were handed on; false when the hand-off refused one (the rest stay
   *     buffered and counted)
   */
  public boolean completeAll(Completion reason) {
    for (Shard shard : shards) {
      if (!shard.completeAll(reason)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether {@code spans} more spans fit the buffer as it is, without completing any trace. Asked
   * without reserving: another thread may take the room the moment after.
   */
  public boolean hasRoomFor(int spans) {
    return bufferedSpans.get() + spans <= policy.maxBufferedSpans();
  }

  /**
   * Whether the buffer could make room now: it is empty, or the hand-off would take its oldest
   * trace. When not, and a request does not fit ({@link #hasRoomFor}), {@link #offer} would refuse
   * it as full; ingest asks both before decoding a request, so that under overload it refuses one
   * for the cost of counting its spans. Asked without completing anything, so the answer may
   * change the moment after.
   */
  public boolean canMakeRoom() {
    Shard victim = shardWithOldest();
    return victim == null || victim.canEvictOldest();
  }

  /** Spans accepted and not yet handed on with their completed trace. */
  public long bufferedSpans() {
    return bufferedSpans.get();
  }

  /** How many open traces the sweeps so far have looked at: tests check a sweep's cost. */
  long tracesExaminedBySweeps() {
    long examined = 0;
    for (Shard shard : shards) {
      synchronized (shard) {
        examined += shard.examined;
      }
    }
    return examined;
  }

  private boolean reserve(int count) {
    long limit = policy.maxBufferedSpans();
    while (true) {
      long current = bufferedSpans.get();
      if (current + count > limit) {
        return false;
      }
      if (bufferedSpans.compareAndSet(current, current + count)) {
        return true;
      }
    }
  }

  /**
   * Completes the oldest open trace (by first arrival) across all shards.
   *
   * @return true when a trace left the buffer (here or by another thread), false when the buffer
   *     is empty or the hand-off has no room
   */
  private boolean evictOldest() {
    Shard victim = shardWithOldest();
    return victim != null && victim.evictOldest();
  }

  /** The shard whose oldest open trace arrived first, by a lock-free scan; null when empty. */
  private Shard shardWithOldest() {
    Shard victim = null;
    long victimArrival = 0;
    for (Shard shard : shards) {
      PendingTrace oldest = shard.oldest;
      // Compare by difference: nanoTime readings may wrap, their differences do not.
      if (oldest != null && (victim == null || oldest.firstArrivalNanos - victimArrival < 0)) {
        victim = shard;
        victimArrival = oldest.firstArrivalNanos;
      }
    }
    return victim;
  }

  private Shard shardOf(long traceIdHigh, long traceIdLow) {
    long mixed = (traceIdLow ^ traceIdHigh) * 0x9E3779B97F4A7C15L;
    return shards[(int) (mixed >>> 32) & (shards.length - 1)];
  }

  private Completion dueReason(PendingTrace trace, long now) {
    if (now - trace.lastArrivalNanos >= timeoutNanos) {
      return Completion.TIMEOUT;
    }
    if (now - trace.firstArrivalNanos >= maxAgeNanos) {
      return Completion.MAX_AGE;
    }
    return null; // open traces are below the span limit: at it they are completed or closed
  }

  /** One trace (or fragment) still collecting spans. Guarded by its shard's monitor. */
  private static final class PendingTrace {
    final TraceId id;
    final long firstArrivalNanos;
    final boolean fragment;
    /** Every span of this fragment arrived after an earlier part of its trace was completed. */
    final boolean late;
    final ArrayList<SpanRecord> spans = new ArrayList<>(4);
    long lastArrivalNanos;
    /** The latest wall-clock arrival of its spans: a step back of the wall clock leaves it. */
    long lastArrivalEpochNanos = Long.MIN_VALUE;

    PendingTrace(TraceId id, long arrivalNanos, boolean fragment, boolean late) {
      this.id = id;
      this.firstArrivalNanos = arrivalNanos;
      this.lastArrivalNanos = arrivalNanos;
      this.fragment = fragment;
      this.late = late;
    }
  }

  /**
   * Open traces of one slice of the trace id space, in first-arrival order, and the ids it
   * completed recently (to tell late spans). All methods hold the shard's monitor.
   */
  private final class Shard {
    private final LinkedHashMap<TraceId, PendingTrace> open = new LinkedHashMap<>();
    /**
     * Fragments at the span limit that the hand-off had no room for, oldest first: no longer open
     * (the trace's next span starts a new fragment), handed on before anything else.
     */
    private final ArrayDeque<PendingTrace> atSpanLimit = new ArrayDeque<>();
    private final LinkedHashMap<TraceId, Completion> recentlyCompleted;
    /** The head of {@link #open}, published for lock-free eviction scans; null when empty. */
    volatile PendingTrace oldest;
    /** Open traces looked at by sweeps. */
    long examined;

    Shard(int recentCapacity) {
      this.recentlyCompleted = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<TraceId, Completion> eldest) {
          return size() > recentCapacity;
        }
      };
    }

    /**
     * Buffers {@code spans[from, to)}, spans of one trace; returns how many are late (their
     * trace had been completed before).
     */
    synchronized int append(List<SpanRecord> spans, int from, int to, long now,
        long arrivalEpochNanos) {
      int late = 0;
      PendingTrace trace = null;
      for (int i = from; i < to; i++) {
        if (trace == null) {
          trace = openTrace(spans.get(i).traceId(), now);
          trace.spans.ensureCapacity(trace.spans.size() + to - i);
        }
        trace.spans.add(spans.get(i));
        trace.lastArrivalNanos = now;
        trace.lastArrivalEpochNanos = Math.max(trace.lastArrivalEpochNanos, arrivalEpochNanos);
        late += trace.late ? 1 : 0;
        if (trace.spans.size() == policy.maxSpansPerTrace()) {
          if (!complete(trace, Completion.SPAN_LIMIT)) {
            // The hand-off is full: the fragment waits, closed, until a sweep finds room.
            close(trace, Completion.SPAN_LIMIT);
            atSpanLimit.addLast(trace);
          }
          trace = null; // the next span starts a fragment
        }
      }
      return late;
    }

    private PendingTrace openTrace(TraceId id, long now) {
      PendingTrace trace = open.get(id);
      if (trace == null) {
        Completion earlier = recentlyCompleted.get(id);
        // Spans past the per-trace limit continue a fragment; they are not late.
        boolean late = earlier != null && earlier != Completion.SPAN_LIMIT;
        trace = new PendingTrace(id, now, earlier != null, late);
        open.put(id, trace);
        if (oldest == null) {
          oldest = trace;
        }
      }
      return trace;
    }

    /**
     * Looks at the open traces, in first-arrival order, only while they first arrived at least
     * the timeout (or the maximum age, if shorter) ago: the rest arrived later still and are due
     * by neither. So a sweep costs the traces open that long, those it completes and those still
     * receiving spans, not all those buffered. Arrival times are read before the shard's monitor
     * is taken, so a trace whose first span raced another request's may complete a sweep late.
     */
    synchronized boolean completeDue(long now) {
      if (!handOnAtSpanLimit()) {
        return false;
      }
      List<PendingTrace> due = null;
      for (PendingTrace trace : open.values()) {
        examined++;
        if (now - trace.firstArrivalNanos < dueAfterNanos) {
          break;
        }
        if (dueReason(trace, now) != null) {
          if (due == null) {
            due = new ArrayList<>();
          }
          due.add(trace);
        }
      }
      if (due != null) {
        for (PendingTrace trace : due) {
          if (!complete(trace, dueReason(trace, now))) {
            return false;
          }
        }
      }
      return true;
    }

    synchronized boolean completeAll(Completion reason) {
      if (!handOnAtSpanLimit()) {
        return false;
      }
      for (PendingTrace trace : new ArrayList<>(open.values())) {
        if (!complete(trace, reason)) {
          return false;
        }
      }
      return true;
    }

    synchronized boolean canEvictOldest() {
      PendingTrace trace = oldest;
      return trace == null || handoff.hasRoomFor(trace.spans.size());
    }

    synchronized boolean evictOldest() {
      PendingTrace trace = oldest;
      // Null: another thread emptied this shard since the scan, which also freed room.
      return trace == null || complete(trace, Completion.EVICTED);
    }

    /** Hands on the fragments waiting at the span limit, oldest first, while it takes them. */
    private boolean handOnAtSpanLimit() {
      while (!atSpanLimit.isEmpty()) {
        if (!handOn(atSpanLimit.peekFirst(), Completion.SPAN_LIMIT)) {
          return false;
        }
        atSpanLimit.removeFirst();
      }
      return true;
    }

    /** Hands {@code trace} on and forgets it, or leaves it buffered when the hand-off is full. */
    private boolean complete(PendingTrace trace, Completion reason) {
      if (!handOn(trace, reason)) {
        return false;
      }
      close(trace, reason);
      return true;
    }

    /** Stops {@code trace} taking spans: the next span of its id starts a new fragment. */
    private void close(PendingTrace trace, Completion reason) {
      open.remove(trace.id);
      recentlyCompleted.put(trace.id, reason);
      if (oldest == trace) {
        oldest = open.isEmpty() ? null : open.values().iterator().next();
      }
    }

    /** Offers {@code trace} to the hand-off; once taken, its spans are no longer buffered. */
    private boolean handOn(PendingTrace trace, Completion reason) {
      CompletedTrace completed = new CompletedTrace(trace.id, trace.spans, reason, trace.fragment,
          trace.lastArrivalEpochNanos);
      if (!handoff.offer(completed)) {
        return false;
      }
      bufferedSpans.addAndGet(-trace.spans.size());
      listener.onTraceCompleted(completed);
      return true;
    }
  }
}
