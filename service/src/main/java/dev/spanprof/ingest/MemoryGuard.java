package dev.spanprof.ingest;

import com.sun.management.GarbageCollectionNotificationInfo;
import dev.spanprof.assembly.NamedDaemonThreads;
import dev.spanprof.config.MemoryConfiguration;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refuses new spans while the heap, as the last garbage collection left it, is above
 * {@code spanprof.memory.limit-percentage} of the maximum heap: the safety net under the
 * configured bounds, as the Collector's {@code memory_limiter} is under its queues. Ingest
 * refuses with a retry hint while it is over, and readiness reports it.
 *
 * <p>Only a collection can tell garbage from live data, so the guard reads the heap each
 * collection leaves. A young collection leaves the old generation's garbage counted, and one
 * that could not promote leaves its own: under the serial collector a full collection often comes
 * right after such a young one, and the requests that queued during both pauses would be refused
 * between their two notifications (the sidecar overlay's configuration at 10 000 spans/s did,
 * {@code bench/sidecar.sh}). So a young collection above the limit only puts the guard in
 * doubt: a whole-heap collection decides, the guard's own if none comes within a second, and
 * where none can ({@code -XX:+DisableExplicitGC}) the young figure stands after
 * {@value #RECHECK_SECONDS} seconds. While over, the guard asks for a full collection every
 * {@value #RECHECK_SECONDS} seconds: with spans refused nothing may fill the old generation
 * enough to collect it.
 */
@Singleton
public final class MemoryGuard {

  private static final Logger LOG = LoggerFactory.getLogger(MemoryGuard.class);
  static final int RECHECK_SECONDS = 5;
  /**
   * The action HotSpot's young collections report (the serial, parallel and G1 collectors'; G1's
   * mixed collections too); its full collections and ZGC's and Shenandoah's cycles report others.
   */
  private static final String MINOR_COLLECTION = "end of minor GC";

  private final long maxBytes;
  private final long limitBytes;
  private final LongSupplier nanoTime;
  private final Runnable fullCollection;
  private final List<Runnable> unregister = new ArrayList<>();
  private ScheduledExecutorService recheck;
  private volatile long usedAfterCollection;
  private volatile boolean over;
  private long lastForcedNanos;
  /** Whether a young collection left the heap above the limit and no whole-heap one has since. */
  private boolean doubt;
  private long doubtSinceNanos;
  private boolean doubtChecked;

  @Inject
  MemoryGuard(MemoryConfiguration configuration) {
    this(Runtime.getRuntime().maxMemory(), configuration.getLimitPercentage(), System::nanoTime,
        System::gc);
    listenToCollections();
    recheck = Executors.newSingleThreadScheduledExecutor(
        new NamedDaemonThreads("spanprof-memory-guard-"));
    recheck.scheduleWithFixedDelay(this::recheck, 1, 1, TimeUnit.SECONDS);
  }

  /** A guard that hears of collections only through {@link #afterCollection}, for tests. */
  MemoryGuard(long maxBytes, int limitPercentage, LongSupplier nanoTime, Runnable fullCollection) {
    this.maxBytes = maxBytes;
    this.limitBytes = maxBytes / 100 * limitPercentage;
    this.nanoTime = nanoTime;
    this.fullCollection = fullCollection;
  }

  /** Whether the last collection left more of the heap in use than the limit. */
  public boolean isOver() {
    return over;
  }

  /** Heap in use after the last collection, in bytes. */
  public long usedAfterCollection() {
    return usedAfterCollection;
  }

  public long limitBytes() {
    return limitBytes;
  }

  /** What a refused client is told. */
  String refusal() {
    return "spanprof's heap is " + percent(usedAfterCollection) + " % full after collection, "
        + "above its limit of " + percent(limitBytes) + " % (" + MemoryConfiguration.PREFIX
        + ".limit-percentage); no span was taken, retry later";
  }

  /**
   * A collection left {@code usedBytes} of the heap in use; {@code wholeHeap} unless it was a
   * young collection, whose figure counts garbage: see the class comment.
   */
  synchronized void afterCollection(long usedBytes, boolean wholeHeap) {
    usedAfterCollection = usedBytes;
    if (usedBytes <= limitBytes) {
      doubt = false;
      setOver(false, usedBytes);
    } else if (wholeHeap || over) {
      doubt = false;
      setOver(true, usedBytes);
    } else if (!doubt) {
      doubt = true;
      doubtChecked = false;
      doubtSinceNanos = nanoTime.getAsLong();
    }
  }

  private void setOver(boolean nowOver, long usedBytes) {
    if (nowOver && !over) {
      lastForcedNanos = nanoTime.getAsLong();
      LOG.warn("refusing new spans: {} % of the heap in use after collection, above the limit "
          + "of {} %", percent(usedBytes), percent(limitBytes));
    } else if (over && !nowOver) {
      LOG.info("taking spans again: {} % of the heap in use after collection",
          percent(usedBytes));
    }
    over = nowOver;
  }

  /**
   * Every second: while in doubt, one full collection to decide, and the young figure taken
   * once none has decided in {@value #RECHECK_SECONDS} seconds; while over, a full collection
   * every {@value #RECHECK_SECONDS} seconds. See the class comment.
   */
  void recheck() {
    boolean collect;
    synchronized (this) {
      long now = nanoTime.getAsLong();
      long recheckNanos = TimeUnit.SECONDS.toNanos(RECHECK_SECONDS);
      if (doubt && now - doubtSinceNanos >= recheckNanos) {
        doubt = false;
        setOver(true, usedAfterCollection);
      }
      collect = doubt && !doubtChecked || over && now - lastForcedNanos >= recheckNanos;
      if (collect) {
        doubtChecked = true;
        lastForcedNanos = now;
      }
    }
    // Outside the lock: a full collection of a large heap takes hundreds of milliseconds, and
    // its notification comes to afterCollection meanwhile.
    if (collect) {
      fullCollection.run();
    }
  }

  @PreDestroy
  void close() {
    if (recheck != null) {
      recheck.shutdownNow();
    }
    unregister.forEach(Runnable::run);
  }

  private String percent(long bytes) {
    return String.format(Locale.ROOT, "%.1f", 100.0 * bytes / maxBytes);
  }

  private void listenToCollections() {
    Set<String> heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
        .filter(pool -> pool.getType() == MemoryType.HEAP)
        .map(MemoryPoolMXBean::getName)
        .collect(Collectors.toSet());
    NotificationListener listener = (Notification notification, Object handback) -> {
      if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION
          .equals(notification.getType())) {
        GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo
            .from((CompositeData) notification.getUserData());
        Map<String, MemoryUsage> after = info.getGcInfo().getMemoryUsageAfterGc();
        long used = 0;
        for (String pool : heapPools) {
          MemoryUsage usage = after.get(pool);
          used += usage == null ? 0 : usage.getUsed();
        }
        afterCollection(used, !MINOR_COLLECTION.equals(info.getGcAction()));
      }
    };
    for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (collector instanceof NotificationEmitter emitter) {
        emitter.addNotificationListener(listener, null, null);
        unregister.add(() -> {
          try {
            emitter.removeNotificationListener(listener);
          } catch (ListenerNotFoundException gone) {
            // nothing to undo
          }
        });
      }
    }
  }
}
