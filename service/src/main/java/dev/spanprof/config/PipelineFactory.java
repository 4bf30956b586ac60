package dev.spanprof.config;

import dev.spanprof.analysis.SpanMapping;
import dev.spanprof.analysis.SpanStore;
import dev.spanprof.analysis.TraceAnalyzer;
import dev.spanprof.assembly.AssemblyListener;
import dev.spanprof.assembly.TimeSource;
import dev.spanprof.assembly.TraceAssembler;
import dev.spanprof.assembly.TraceSink;
import dev.spanprof.assembly.TraceWorkers;
import dev.spanprof.export.RetryClock;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;
import java.time.Clock;

/** Turns configuration into the core objects of the ingest → assembly → analysis pipeline. */
@Factory
final class PipelineFactory {

  @Singleton
  TimeSource timeSource() {
    return TimeSource.system();
  }

  /** Time for export retries: real waiting. */
  @Singleton
  RetryClock retryClock() {
    return RetryClock.SYSTEM;
  }

  /** Wall-clock time, for comparing with span times (pool windows). */
  @Singleton
  Clock clock() {
    return Clock.systemUTC();
  }

  @Singleton
  SpanStore spanStore(IngestConfiguration configuration) {
    return SpanStore.ofSize(configuration.getSpanStoreSize());
  }

  /** One mapping for the ingest, which maps each span, and the analysis, which reads it. */
  @Singleton
  SpanMapping spanMapping(MappingConfiguration configuration) {
    return configuration.toMapping();
  }

  /** Profiles carry the chosen-span segments only when a pool has a capacity to account them to. */
  @Singleton
  TraceAnalyzer traceAnalyzer(SpanMapping mapping, PoolsConfiguration pools) {
    return new TraceAnalyzer(mapping, !pools.getCapacity().isEmpty());
  }

  @Singleton
  TraceWorkers traceWorkers(
      AnalysisConfiguration configuration, TraceSink sink, AssemblyListener listener) {
    return new TraceWorkers(
        configuration.effectiveWorkers(), configuration.getMaxQueuedSpans(), sink, listener);
  }

  @Singleton
  TraceAssembler traceAssembler(
      AssemblyConfiguration configuration,
      TimeSource timeSource,
      TraceWorkers workers,
      AssemblyListener listener) {
    return new TraceAssembler(configuration.toPolicy(), timeSource, workers, listener);
  }
}
