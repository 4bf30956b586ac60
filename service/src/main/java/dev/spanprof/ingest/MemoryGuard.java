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
 * collection leaves. While it is over, it asks for a full collection every
 * {@value #RECHECK_SECONDS} seconds: a young collection leaves the old generation's garbage
 * counted, and with spans refused nothing may fill the old generation enough to collect it.
 */
@Singleton
public final class MemoryGuard {

  private static final Logger LOG = LoggerFactory.getLogger(MemoryGuard.class);
  static final int RECHECK_SECONDS = 5;

  private final long maxBytes;
  private final long limitBytes;
  private final LongSupplier nanoTime;
  private final Runnable fullCollection;
  private final List<Runnable> unregister = new ArrayList<>();
  private ScheduledExecutorService recheck;
  private volatile long usedAfterCollection;
  private volatile boolean over;
  private volatile long lastForcedNanos;

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

  /** A collection left {@code usedBytes} of the heap in use. */
  void afterCollection(long usedBytes) {
    usedAfterCollection = usedBytes;
    boolean wasOver = over;
    over = usedBytes > limitBytes;
    if (over && !wasOver) {
      lastForcedNanos = nanoTime.getAsLong();
      LOG.warn("refusing new spans: {} % of the heap in use after collection, above the limit "
          + "of {} %", percent(usedBytes), percent(limitBytes));
    } else if (wasOver && !over) {
      LOG.info("taking spans again: {} % of the heap in use after collection",
          percent(usedBytes));
    }
  }

  /** While over, a full collection every few seconds: see the class comment. */
  synchronized void recheck() {
    long now = nanoTime.getAsLong();
    if (over && now - lastForcedNanos >= TimeUnit.SECONDS.toNanos(RECHECK_SECONDS)) {
      lastForcedNanos = now;
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
        Map<String, MemoryUsage> after = GarbageCollectionNotificationInfo
            .from((CompositeData) notification.getUserData()).getGcInfo().getMemoryUsageAfterGc();
        long used = 0;
        for (String pool : heapPools) {
          MemoryUsage usage = after.get(pool);
          used += usage == null ? 0 : usage.getUsed();
        }
        afterCollection(used);
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
