package dev.spanprof.wiring;

import dev.spanprof.config.AnalysisConfiguration;
import dev.spanprof.config.AssemblyConfiguration;
import dev.spanprof.config.ExportConfiguration;
import dev.spanprof.config.IngestConfiguration;
import dev.spanprof.config.MetricsConfiguration;
import dev.spanprof.config.QueryConfiguration;
import io.micronaut.context.annotation.Context;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs at start what spanprof may hold in memory: the defaults scale with the heap, so the values
 * in force are known only once the JVM has chosen its heap.
 */
@Context
final class MemoryBoundsLog {

  private static final Logger LOG = LoggerFactory.getLogger(MemoryBoundsLog.class);

  MemoryBoundsLog(AssemblyConfiguration assembly, AnalysisConfiguration analysis,
      ExportConfiguration export, IngestConfiguration ingest, MetricsConfiguration metrics,
      QueryConfiguration query) {
    LOG.info("memory bounds for a heap of {} MiB: {} buffered spans, {} queued for analysis, "
            + "{} per trace fragment, {} queued for forwarding, a {} MiB span store, "
            + "{} distribution series, {} recent profiles",
        Runtime.getRuntime().maxMemory() >> 20, assembly.getMaxBufferedSpans(),
        analysis.getMaxQueuedSpans(), assembly.getMaxSpansPerTrace(), export.getQueueSpans(),
        ingest.getSpanStoreSize() >> 20, metrics.getMaxSeries(), query.getRecentTraces());
  }
}
