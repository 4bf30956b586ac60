package dev.spanprof.wiring;

import dev.spanprof.analysis.trace.TraceAnalyzer;
import dev.spanprof.assembly.AssemblyListener;
import dev.spanprof.assembly.AssemblyPolicy;
import dev.spanprof.assembly.TraceAssembler;
import dev.spanprof.assembly.TraceSink;
import dev.spanprof.assembly.TraceWorkers;
import dev.spanprof.config.AnalysisConfiguration;
import dev.spanprof.config.AssemblyConfiguration;
import dev.spanprof.config.ExportConfiguration;
import dev.spanprof.config.IngestConfiguration;
import dev.spanprof.config.MappingConfiguration;
import dev.spanprof.config.PoolsConfiguration;
import dev.spanprof.span.SpanMapping;
import dev.spanprof.span.store.SpanStore;
import dev.spanprof.time.TimeSource;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;
import java.time.Duration;

/** Turns configuration into the core objects of the ingest → assembly → analysis pipeline. */
@Factory
final class PipelineFactory {

  @Singleton
  TimeSource timeSource() {
    return TimeSource.system();
  }

  @Singleton
  SpanStore spanStore(IngestConfiguration configuration) {
    return SpanStore.ofSize(configuration.getSpanStoreSize());
  }

  /** One mapping for the ingest, which maps each span, and the analysis, which reads it. */
  @Singleton
  SpanMapping spanMapping(MappingConfiguration configuration) {
    return SpanMappings.of(configuration);
  }

  /** Profiles carry the chosen-span segments only when a pool has a capacity to account them to. */
  @Singleton
  TraceAnalyzer traceAnalyzer(SpanMapping mapping, PoolsConfiguration pools) {
    return new TraceAnalyzer(mapping, !pools.getCapacity().isEmpty());
  }

  /**
   * The workers, whose queue, like the forwarding's, takes a whole fragment of a trace or none:
   * so each must hold the largest, {@code max-spans-per-trace}, or such a fragment would wait
   * forever.
   */
  @Singleton
  TraceWorkers traceWorkers(AnalysisConfiguration configuration, AssemblyConfiguration assembly,
      ExportConfiguration export, TraceSink sink, AssemblyListener listener) {
    int fragment = assembly.getMaxSpansPerTrace();
    requireRoomForFragment(configuration.getMaxQueuedSpans(),
        AnalysisConfiguration.PREFIX + ".max-queued-spans", fragment);
    if (export.enabled() && export.modeValue() == ExportConfiguration.Mode.ENRICHED) {
      requireRoomForFragment(export.getQueueSpans(), ExportConfiguration.PREFIX + ".queue-spans",
          fragment);
    }
    return new TraceWorkers(
        configuration.effectiveWorkers(), configuration.getMaxQueuedSpans(), sink, listener);
  }

  private static void requireRoomForFragment(long bound, String key, int fragment) {
    if (bound < fragment) {
      throw new IllegalArgumentException(key + " must hold the largest fragment of a trace, "
          + AssemblyConfiguration.PREFIX + ".max-spans-per-trace=" + fragment + ", was " + bound);
    }
  }

  @Singleton
  TraceAssembler traceAssembler(
      AssemblyConfiguration configuration,
      TimeSource timeSource,
      TraceWorkers workers,
      AssemblyListener listener) {
    return new TraceAssembler(assemblyPolicy(configuration), timeSource, workers, listener);
  }

  /** The core's view; an invalid value fails start-up with a message naming the prefix. */
  static AssemblyPolicy assemblyPolicy(AssemblyConfiguration configuration) {
    try {
      Duration sweep = configuration.getSweepInterval();
      if (sweep == null || sweep.isNegative() || sweep.isZero()) {
        throw new IllegalArgumentException("sweepInterval must be positive, was " + sweep);
      }
      return new AssemblyPolicy(configuration.getTraceTimeout(), configuration.getMaxTraceAge(),
          configuration.getMaxBufferedSpans(), configuration.getMaxSpansPerTrace(),
          configuration.getRecentTraceIds());
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new IllegalArgumentException(
          "invalid " + AssemblyConfiguration.PREFIX + " configuration: " + e.getMessage(), e);
    }
  }
}
